"""The hunk model (acp_tui/services/hunks.py): any subset of a change's hunks applies
consistently, byte for byte, and a unified diff reads back as the same hunks."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acp_tui.services.hunks import (
    NO_NEWLINE,
    FileChange,
    decode_text,
    split_keepends,
)

# Lines drawn from a small alphabet, so that texts share lines and diffs have context;
# some lines carry \r, a tab or U+2028 (not line ends for a file), and the text may end
# without a newline.
_line = st.sampled_from(["a", "b", "c", "d", "", "  x", "e\r", "f\t", "g\u2028h", "ü"])
_text = st.builds(
    lambda lines, end: "\n".join(lines) + ("\n" if end and lines else ""),
    st.lists(_line, max_size=30),
    st.booleans(),
)
_maybe_text = st.one_of(st.none(), _text)


@settings(max_examples=300, deadline=None)
@given(_maybe_text, _maybe_text, st.integers(0, 4))
def test_all_hunks_give_the_new_text_and_none_the_old(old, new, context):
    change = FileChange.compute(old, new, context=context)
    if not change.hunks:
        # Nothing to choose: the texts have the same lines (one side may be a missing file
        # and the other an empty one; whether the file exists is the file list's business).
        assert (old or "") == (new or "")
        return
    assert change.apply(change.all_hunks()) == new
    assert change.apply(()) == old


@settings(max_examples=300, deadline=None)
@given(_text, _text, st.integers(0, 4), st.data())
def test_any_subset_is_consistent(old, new, context, data):
    change = FileChange.compute(old, new, context=context)
    keep = data.draw(st.sets(st.sampled_from(range(len(change.hunks))))) if change.hunks else set()
    result = change.apply(keep)
    assert result is not None
    # Each hunk's span holds exactly its chosen side; what lies between hunks is the old text.
    lines = split_keepends(result)
    position = 0
    old_lines = split_keepends(old)
    previous_end = 0
    for index, hunk in enumerate(change.hunks):
        between = old_lines[previous_end : hunk.old_start]
        assert lines[position : position + len(between)] == between
        position += len(between)
        side = hunk.new_lines() if index in keep else hunk.old_lines()
        assert lines[position : position + len(side)] == side
        position += len(side)
        previous_end = hunk.old_end
    assert lines[position:] == old_lines[previous_end:]
    # Taking the rest afterwards, from the partial text, reaches the new text.
    rest = FileChange.compute(result, new, context=context)
    assert rest.apply(rest.all_hunks()) == new
    assert rest.apply(()) == result
    # Reverting a kept subset: the diff old -> partial, none taken, is the old text again.
    back = FileChange.compute(old, result, context=context)
    assert back.apply(()) == old


@settings(max_examples=300, deadline=None)
@given(_maybe_text, _maybe_text, st.integers(0, 4))
def test_a_unified_diff_reads_back_as_the_same_change(old, new, context):
    change = FileChange.compute(old, new, context=context)
    text = change.unified("notes.md")
    if not change.hunks:
        assert text == ""
        return
    parsed = FileChange.parse(text, old)
    assert parsed.hunks == change.hunks
    if new is None:
        assert parsed.new is None
    else:
        assert parsed.apply(parsed.all_hunks()) == new


def test_the_unified_format_is_gits():
    change = FileChange.compute("one\ntwo\nthree\n", "one\n2\nthree\nfour")
    assert change.unified("f.txt") == (
        "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,4 @@\n one\n-two\n+2\n three\n+four\n"
        + NO_NEWLINE
        + "\n"
    )
    created = FileChange.compute(None, "x\n")
    assert created.created and created.unified("n").startswith(
        "--- /dev/null\n+++ b/n\n@@ -0,0 +1 @@"
    )
    deleted = FileChange.compute("x\n", None)
    assert deleted.deleted and deleted.unified("n").startswith(
        "--- a/n\n+++ /dev/null\n@@ -1 +0,0 @@"
    )
    assert deleted.apply(()) == "x\n" and deleted.apply({0}) is None
    assert created.apply(()) is None and created.apply({0}) == "x\n"


def test_far_apart_changes_are_separate_hunks_and_near_ones_share():
    old = "".join(f"{n}\n" for n in range(40))

    def change(**lines: str) -> str:
        return "".join(lines.get(f"n{n}", f"{n}") + "\n" for n in range(40))

    far = FileChange.compute(old, change(n3="three", n30="thirty"))
    assert len(far.hunks) == 2
    assert far.apply({1}) == change(n30="thirty")
    near = FileChange.compute(old, change(n3="x", n6="y"))
    assert len(near.hunks) == 1


def test_a_huge_text_is_one_hunk():
    from acp_tui.services import hunks

    old = "a\n" * (hunks.MAX_MATCH_LINES + 1)
    change = FileChange.compute(old, old + "b\n")
    assert len(change.hunks) == 1 and change.apply({0}) == old + "b\n"


@pytest.mark.parametrize(
    "diff",
    [
        "@@ -1 +1 @@\n-nope\n+x\n",  # does not fit the old text
        "@@ -1,2 +1 @@\n-a\n",  # counts do not match
        "garbage\n@@ nonsense\n",
        "@@ -1 +1 @@\n?a\n",
        NO_NEWLINE + "\n",
    ],
)
def test_a_bad_diff_is_refused_with_a_reason(diff):
    with pytest.raises(ValueError):
        FileChange.parse(diff, "a\nb\n")


def test_apply_refuses_a_hunk_that_is_not_there():
    with pytest.raises(IndexError):
        FileChange.compute("a\n", "b\n").apply({3})


def test_decode_text_tells_text_from_binary():
    assert decode_text("é\n".encode()) == "é\n"
    assert decode_text(b"\x00\x01") is None
    assert decode_text(b"\xff\xfe") is None


def test_lines_split_only_on_newline():
    assert split_keepends("a\rb\u2028c\nd") == ["a\rb\u2028c\n", "d"]
    assert split_keepends("") == [] and split_keepends(None) == []
