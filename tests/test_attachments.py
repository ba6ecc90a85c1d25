"""Files and images in prompts: what an @mention becomes for what the agent takes."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from acp_tui.session.prompts import attachments
from acp_tui.session.prompts.attachments import (
    MAX_EMBED_BYTES,
    PromptCapabilities,
    build_prompt,
    describe_block,
    fit_to_capabilities,
    format_size,
    image_paths_in_paste,
)

PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x02\x00\x00\x00\x03\x08\x02\x00\x00\x00"
    b"\x00\x00\x00\x00"
)
IMAGES = {
    "pic.png": (PNG, "image/png"),
    "pic.jpg": (b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + b"\x00" * 8, "image/jpeg"),
    "pic.jpeg": (b"\xff\xd8\xff\xe1" + b"\x00" * 12, "image/jpeg"),
    "pic.gif": (b"GIF89a\x02\x00\x03\x00" + b"\x00" * 6, "image/gif"),
    "pic.webp": (b"RIFF\x10\x00\x00\x00WEBPVP8 " + b"\x00" * 4, "image/webp"),
}
RICH = PromptCapabilities(image=True, embedded_context=True, known=True)
NO_IMAGES = PromptCapabilities(image=False, embedded_context=True, known=True)


def test_capabilities_read_from_initialize() -> None:
    caps = PromptCapabilities.from_agent(
        {"promptCapabilities": {"image": True, "embeddedContext": False}}
    )
    assert (caps.image, caps.embedded_context, caps.known) == (True, False, True)
    # Omitted means no (the schema's default is false), not "unknown".
    assert PromptCapabilities.from_agent({}) == PromptCapabilities.baseline()
    assert PromptCapabilities.from_agent("junk") == PromptCapabilities.baseline()


def test_a_text_file_is_embedded_when_the_agent_takes_embedded_context(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("# Notes\nsay ✓\n", encoding="utf-8")
    built = build_prompt("read @notes.md please", tmp_path, RICH)
    assert built.refused is None and built.notes == []
    assert built.blocks == [
        {"type": "text", "text": "read @notes.md please"},
        {
            "type": "resource",
            "resource": {
                "uri": (tmp_path / "notes.md").resolve().as_uri(),
                "text": "# Notes\nsay ✓\n",
                "mimeType": "text/markdown",
            },
        },
    ]


def test_a_text_file_is_linked_when_the_agent_takes_only_links(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("hello", encoding="utf-8")
    built = build_prompt("read @notes.md", tmp_path, PromptCapabilities.baseline())
    assert built.blocks[1] == {
        "type": "resource_link",
        "uri": (tmp_path / "notes.md").resolve().as_uri(),
        "name": "notes.md",
        "mimeType": "text/markdown",
        "size": 5,
    }
    assert built.notes == []


def test_a_file_over_the_cap_is_linked_and_the_person_is_told(tmp_path: Path) -> None:
    big = tmp_path / "big.log"
    big.write_bytes(b"x" * (MAX_EMBED_BYTES + 1))
    built = build_prompt("see @big.log", tmp_path, RICH)
    assert [b["type"] for b in built.blocks] == ["text", "resource_link"]
    assert built.blocks[1]["size"] == MAX_EMBED_BYTES + 1
    [note] = built.notes
    assert "big.log" in note and "256 KB" in note and "link" in note
    # At the cap exactly, it is embedded.
    big.write_bytes(b"x" * MAX_EMBED_BYTES)
    assert build_prompt("see @big.log", tmp_path, RICH).blocks[1]["type"] == "resource"


@pytest.mark.parametrize("content", [b"\x00\x01\x02binary", b"\xff\xfe not utf-8 \xc3"])
def test_a_binary_file_is_linked_never_embedded_as_text(tmp_path: Path, content: bytes) -> None:
    (tmp_path / "data.bin").write_bytes(content)
    built = build_prompt("@data.bin", tmp_path, RICH)
    assert built.blocks[1]["type"] == "resource_link"
    assert built.notes == []


@pytest.mark.parametrize("name", sorted(IMAGES))
def test_each_image_format_goes_as_an_image_block(tmp_path: Path, name: str) -> None:
    data, mime = IMAGES[name]
    (tmp_path / name).write_bytes(data)
    built = build_prompt(f"what is in @{name}?", tmp_path, RICH)
    assert built.refused is None
    [block] = built.blocks[1:]
    assert block["type"] == "image"
    assert block["mimeType"] == mime
    assert base64.b64decode(block["data"]) == data
    assert block["uri"] == (tmp_path / name).resolve().as_uri()


@pytest.mark.parametrize("name", sorted(IMAGES))
def test_an_image_is_refused_when_the_agent_takes_none(tmp_path: Path, name: str) -> None:
    (tmp_path / name).write_bytes(IMAGES[name][0])
    (tmp_path / "notes.md").write_text("x")
    built = build_prompt(f"see @notes.md and @{name}", tmp_path, NO_IMAGES)
    assert built.refused is not None
    assert name in built.refused and "does not take images" in built.refused


def test_before_the_agent_is_known_an_image_is_attached_and_fitted_later(
    tmp_path: Path,
) -> None:
    (tmp_path / "pic.png").write_bytes(PNG)
    built = build_prompt("@pic.png", tmp_path, PromptCapabilities())
    assert built.refused is None and built.blocks[1]["type"] == "image"
    fitted, notes = fit_to_capabilities(built.blocks, PromptCapabilities.baseline())
    assert fitted[0] is built.blocks[0]
    assert fitted[1] == {
        "type": "resource_link",
        "uri": (tmp_path / "pic.png").resolve().as_uri(),
        "name": "pic.png",
        "mimeType": "image/png",
    }
    assert notes == ["pic.png was sent as a link: this agent does not take images."]


def test_a_file_named_like_an_image_that_is_not_one_is_a_file(tmp_path: Path) -> None:
    (tmp_path / "fake.png").write_text("not an image at all")
    built = build_prompt("@fake.png", tmp_path, NO_IMAGES)
    assert built.refused is None
    assert built.blocks[1]["type"] == "resource"


def test_an_image_over_the_cap_is_linked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(attachments, "MAX_IMAGE_BYTES", 10)
    (tmp_path / "pic.png").write_bytes(PNG)
    built = build_prompt("@pic.png", tmp_path, RICH)
    assert built.blocks[1]["type"] == "resource_link"
    assert "pic.png" in built.notes[0]


def test_fit_keeps_what_fits_and_links_or_names_what_does_not() -> None:
    blocks = [
        {"type": "text", "text": "hi"},
        {"type": "resource", "resource": {"uri": "file:///a/b.md", "text": "x"}},
        {"type": "image", "mimeType": "image/png", "data": "AAAA"},
        {"type": "resource_link", "uri": "file:///c", "name": "c"},
    ]
    assert fit_to_capabilities(blocks, RICH) == (blocks, [])
    fitted, notes = fit_to_capabilities(blocks, PromptCapabilities.baseline())
    assert [b["type"] for b in fitted] == ["text", "resource_link", "text", "resource_link"]
    assert fitted[1]["uri"] == "file:///a/b.md"
    assert fitted[2] == {"type": "text", "text": "\n[image: left out]"}
    assert len(notes) == 2


def test_chips_describe_blocks_without_their_data() -> None:
    data = base64.b64encode(b"x" * 3000).decode()
    image = describe_block({"type": "image", "mimeType": "image/png", "data": data})
    assert image is not None and (image.name, image.mime, image.size) == (
        "image",
        "image/png",
        3000,
    )
    named = describe_block(
        {"type": "image", "mimeType": "image/gif", "data": "R0lG", "uri": "file:///x/a%20b.gif"}
    )
    assert named is not None and named.name == "a b.gif" and named.size == 3
    resource = describe_block(
        {"type": "resource", "resource": {"uri": "file:///p/n.md", "text": "✓✓", "mimeType": "t"}}
    )
    assert resource is not None and (resource.name, resource.kind, resource.size) == (
        "n.md",
        "file",
        6,
    )
    blob = describe_block({"type": "resource", "resource": {"uri": "u", "blob": "AAECAw=="}})
    assert blob is not None and blob.size == 4
    link = describe_block({"type": "resource_link", "uri": "file:///c", "name": "c", "size": 9})
    assert link is not None and link.label() == "c · link · 9 B"
    assert describe_block({"type": "text", "text": "x"}) is None
    odd = describe_block({"type": "hologram"})
    assert odd is not None and odd.name == "hologram"


def test_a_pasted_image_path_is_recognised_in_the_forms_terminals_paste(tmp_path: Path) -> None:
    spaced = tmp_path / "my shots"
    spaced.mkdir()
    (spaced / "one.png").write_bytes(PNG)
    (tmp_path / "two.gif").write_bytes(IMAGES["pic.gif"][0])
    (tmp_path / "notes.md").write_text("x")
    one, two = spaced / "one.png", tmp_path / "two.gif"
    for pasted in (
        f"'{one}'",
        str(one).replace(" ", "\\ "),
        f'"{one}" {two}\n',
        one.as_uri(),
        "two.gif",
    ):
        found = image_paths_in_paste(pasted, tmp_path)
        assert found is not None and found[-1].name in ("one.png", "two.gif"), pasted
    for pasted in ("hello world", f"{two} notes.md", str(tmp_path / "nope.png"), "", "'open"):
        assert image_paths_in_paste(pasted, tmp_path) is None, pasted


def test_sizes_read_as_file_sizes() -> None:
    assert [format_size(n) for n in (0, 1023, 1024, 1536, 5 * 1024 * 1024, 300 * 1024**2)] == [
        "0 B",
        "1023 B",
        "1.0 KB",
        "1.5 KB",
        "5.0 MB",
        "300 MB",
    ]


# -- a mention names any path, in visible text -------------------------------------------------

#: Any path a file system may hold (no NUL), lone surrogates (undecodable bytes) too.
PATHS = st.text(st.characters(blacklist_characters="\x00", blacklist_categories=()), min_size=1)


@given(path=PATHS, before=st.sampled_from(["", "see ", "a\n"]))
def test_every_path_has_a_mention_of_visible_text_that_reads_back_as_it(
    path: str, before: str
) -> None:
    """What the ``@`` list writes for a file holds no control, bidi or invisible character
    (the prompt shows it as typed) and reads back as exactly that path."""
    mention = attachments.mention_for(path)
    assert all(char.isprintable() or char == " " for char in mention), mention
    assert attachments.find_mentions(f"{before}{mention} and more") == [path]


@pytest.mark.parametrize(
    "name",
    ["e\x1b]52;c;ZXZpbA==\x07.md", "nl\nname.md", "bidi\u202etxt.md", 'q" d\\.md', "t\tab.md"],
)
def test_a_file_named_with_control_characters_is_sent_by_its_mention(
    tmp_path: Path, name: str
) -> None:
    (tmp_path / name).write_text("hello\n")
    text = f"look at {attachments.mention_for(name)} please"
    assert "\x1b" not in text and "\n" not in text and "\u202e" not in text
    blocks = build_prompt(text, tmp_path, RICH).blocks
    assert [b["resource"]["uri"] for b in blocks[1:]] == [(tmp_path / name).resolve().as_uri()]


def test_a_quoted_mention_typed_with_backslashes_still_names_its_file(tmp_path: Path) -> None:
    """Escapes are read in a quoted mention; one naming nothing so is tried as written."""
    (tmp_path / "a\\new b.md").write_text("x")
    blocks = build_prompt('see @"a\\new b.md"', tmp_path, RICH).blocks
    assert [b["resource"]["uri"] for b in blocks[1:]] == [
        (tmp_path / "a\\new b.md").resolve().as_uri()
    ]
