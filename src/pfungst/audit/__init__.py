"""Audit a benchmark: can its answers be predicted from surface features alone?"""
