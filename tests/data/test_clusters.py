"""Which items belong together: ``cluster_by`` chooses the automatic key, none, or a named metadata key or field."""

from __future__ import annotations

import pytest

from pfungst.data import Benchmark, Item
from pfungst.data.clusters import item_clusters
from pfungst.errors import ConfigError


def _items(n: int = 8) -> Benchmark:
    """Subjects a/b (the automatic key); a ``topic`` in metadata of four values; a ``passage_id`` field of two."""
    return Benchmark(
        "toy",
        tuple(
            Item(
                f"q{i}",
                "?",
                ("x", "y"),
                0,
                fields={"passage_id": f"p{i % 2}"},
                metadata={"subject": "ab"[i // 4], "topic": f"t{i % 4}"},
            )
            for i in range(n)
        ),
    )


def test_auto_clusters_by_the_first_key_and_none_never_clusters() -> None:
    assert set(item_clusters(_items()).values()) == {"subject=a", "subject=b"}
    assert set(item_clusters(_items(), by="auto").values()) == {"subject=a", "subject=b"}
    assert item_clusters(_items(), by="none") is None


def test_a_named_metadata_key_or_field_clusters_by_it_instead_of_the_automatic_key() -> None:
    by_topic = item_clusters(_items(), by="topic")
    assert by_topic is not None and by_topic["q0"] == by_topic["q4"] == "topic=t0" and len(set(by_topic.values())) == 4
    by_passage = item_clusters(_items(), by="passage_id")
    assert by_passage is not None and set(by_passage.values()) == {"passage_id=p0", "passage_id=p1"}


def test_a_named_key_some_item_lacks_is_an_error_naming_it_and_what_the_items_carry() -> None:
    items = (*_items(), Item("odd", "?", ("x", "y"), 0))
    with pytest.raises(ConfigError, match=r"cluster_by 'topic': 1 of 9 items .* \(e\.g\. 'odd'\)\. The items carry: "):
        item_clusters(Benchmark("toy", items), by="topic")
    with pytest.raises(ConfigError, match=r"carry: passage_id, subject, topic\. Use --cluster-by auto\|none\|FIELD"):
        item_clusters(_items(), by="chapter")


def test_a_named_key_with_one_value_or_an_empty_name_is_an_error() -> None:
    items = tuple(Item(f"q{i}", "?", ("x", "y"), 0, metadata={"book": "one"}) for i in range(4))
    with pytest.raises(ConfigError, match=r"cluster_by 'book': every item .* same value, one cluster"):
        item_clusters(Benchmark("toy", items), by="book")
    with pytest.raises(ConfigError, match=r"cluster_by must be 'auto', 'none' or the name"):
        item_clusters(_items(), by=" ")
