"""Redaction finds the class of each secret (several key formats, key words, private keys,
URL passwords), home directories and e-mail addresses, and nothing in ordinary prose, code or
hashes; what it finds is replaced, can be undone, and is previewed masked."""

from __future__ import annotations

import random
import string

import pytest

from acp_tui.text.redaction import (
    EMAIL,
    HOME,
    PATTERN,
    PRIVATE_KEY,
    SECRET,
    URL_PASSWORD,
    Redactor,
    compile_patterns,
    mask,
)

_RANDOM = random.Random(43)


def rand(size: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    """Random characters, with an upper and lower letter and a digit (as real keys have)."""
    body = "".join(_RANDOM.choice(alphabet) for _ in range(size - 3))
    return body + "aZ7" if alphabet != string.hexdigits.lower() else body + "a07"


HEX = "0123456789abcdef"

#: A planted secret of each kind: (the rule that must find it, the text around it, the secret).
KEYS = [
    ("OpenAI key", "export OPENAI_API_KEY={}", "sk-" + rand(48)),
    ("OpenAI key", "use {} for the project", "sk-proj-" + rand(60, string.ascii_letters + "_-0")),
    ("Anthropic key", "key: {}", "sk-ant-api03-" + rand(90, string.ascii_letters + "_-1")),
    ("GitHub token", "git clone https://{}@github.com/o/r", "ghp_" + rand(36)),
    ("GitHub token", "GH={}", "github_pat_11ABCDEFG0" + rand(59)),
    ("GitHub token", f"(gho_{rand(36)})", None),
    (
        "AWS access key",
        "aws_access_key_id = {}",
        "AKIA" + "".join(_RANDOM.choice(string.ascii_uppercase + string.digits) for _ in range(16)),
    ),
    ("Slack token", "SLACK={}", "xoxb-123456789012-" + rand(24)),
    ("Google API key", "key={}", "AIza" + rand(35)),
    ("Stripe key", "{}", "sk_live_" + rand(24)),
    (
        "JWT",
        "Authorization: {}",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0." + rand(43, string.ascii_letters + "_-"),
    ),
    ("GitLab token", "{}", "glpat-" + rand(20)),
    ("Hugging Face token", "HF_TOKEN {}", "hf_" + rand(34)),
    ("secret near a key word", "DATABASE_SECRET={}", rand(40)),
    ("secret near a key word", '{{"api_token": "{}"}}', rand(32)),
    ("secret near a key word", "my token is {}", rand(24)),
    ("secret near a key word", "signing_key = {}", "".join(_RANDOM.choice(HEX) for _ in range(64))),
    ("password near a key word", "password: {}", "Tr0ub4dor&3"),
    ("password near a key word", "--db-password hunter22", None),
    ("Bearer token", "curl -H 'Authorization: Bearer {}'", rand(12, "abcdef") + rand(20)),
]


def _planted() -> list[tuple[str, str, str]]:
    out = []
    for rule, around, secret in KEYS:
        if secret is None:  # the secret is the text's own last word
            text = around
            secret = around.strip("()").rsplit(" ", 1)[-1].removeprefix("(")
        else:
            text = around.format(secret)
        out.append((rule, text, secret))
    return out


@pytest.mark.parametrize(("rule", "text", "secret"), _planted(), ids=[k[0] for k in KEYS])
def test_each_kind_of_secret_is_found_and_replaced(rule: str, text: str, secret: str) -> None:
    redactor = Redactor(home=None)
    out = redactor.scrub(text, "a message")
    assert secret not in out
    found = [f for f in redactor.findings if f.kind == SECRET]
    assert [f.rule for f in found] == [rule]
    assert found[0].secret == secret
    # The preview never shows the secret whole (nor more than a quarter of it).
    assert secret not in found[0].preview and secret[len(secret) // 4 + 1 :] not in found[0].preview


PEM_KINDS = [
    "RSA PRIVATE KEY",
    "PRIVATE KEY",
    "OPENSSH PRIVATE KEY",
    "EC PRIVATE KEY",
    "ENCRYPTED PRIVATE KEY",
    "PGP PRIVATE KEY BLOCK",
]


@pytest.mark.parametrize("kind", PEM_KINDS)
def test_a_private_key_block_goes_whole(kind: str) -> None:
    body = "\n".join(rand(64, string.ascii_letters + string.digits + "+/") for _ in range(5))
    block = f"-----BEGIN {kind}-----\n{body}\n-----END {kind}-----"
    text = f"here it is:\n\n{block}\n\nkeep it safe"
    redactor = Redactor(home=None)
    out = redactor.scrub(text, "a tool's output")
    assert out == "here it is:\n\n[redacted private key]\n\nkeep it safe"
    [finding] = redactor.findings
    assert finding.kind == PRIVATE_KEY and finding.secret == block and finding.line == 3
    assert body.split("\n")[0] not in finding.preview and "7 lines" in finding.preview


def test_a_private_key_cut_short_goes_to_the_end_of_its_lines() -> None:
    body = rand(64, string.ascii_letters + "+/")
    text = f"-----BEGIN RSA PRIVATE KEY-----\n{body}\n{body[:20]}"
    out = Redactor(home=None).scrub(text, "x")
    assert body[:20] not in out and out.startswith("[redacted private key]")


@pytest.mark.parametrize(
    ("url", "password"),
    [
        ("https://bob:hunter2@example.com/x", "hunter2"),
        ("postgres://app:s3cr%40t@db.internal:5432/main", "s3cr%40t"),
        ("redis://:Zx9pQ@cache:6379", None),
    ],
)
def test_the_password_of_a_url_goes_and_the_rest_stays(url: str, password: str | None) -> None:
    redactor = Redactor(home=None)
    out = redactor.scrub(f"connect to {url} now", "x")
    if password is None:  # no user name: ":Zx9pQ@" is not user:password
        assert out == f"connect to {url} now"
        return
    assert password not in out and "[redacted]@" in out
    assert [f.kind for f in redactor.findings] == [URL_PASSWORD]


def test_home_directories_become_a_tilde() -> None:
    redactor = Redactor(home="/srv/people/ann")
    text = (
        "edited /srv/people/ann/proj/a.py and /home/bob/.ssh/config, "
        "/Users/carol/Desktop, C:\\Users\\dave\\x and /home/eve; not /homework or /Users/Shared"
    )
    out = redactor.scrub(text, "x")
    assert out == (
        "edited ~/proj/a.py and ~/.ssh/config, ~/Desktop, ~\\x and ~; "
        "not /homework or /Users/Shared"
    )
    assert {f.kind for f in redactor.findings} == {HOME}
    assert len(redactor.findings) == 5


def test_the_running_users_home_is_found_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/var/lib/someone")
    out = Redactor().scrub("cwd /var/lib/someone/app; /var/lib/someones stays", "x")
    assert out == "cwd ~/app; /var/lib/someones stays"


def test_e_mail_addresses_go() -> None:
    redactor = Redactor(home=None)
    out = redactor.scrub("Signed-off-by: Ann Lee <ann.lee+acp@mail.example.co.uk>", "x")
    assert out == "Signed-off-by: Ann Lee <[redacted e-mail]>"
    assert [f.kind for f in redactor.findings] == [EMAIL]


def test_the_persons_patterns_go_by_their_name() -> None:
    patterns, problems = compile_patterns({"ticket": r"ACME-\d{4,}", "bad": "(", "empty": "x*"})
    assert sorted(patterns) == ["ticket"] and len(problems) == 2
    redactor = Redactor(patterns, home=None)
    assert redactor.scrub("see ACME-12345 and ACME-1", "x") == "see [redacted ticket] and ACME-1"
    assert [f.kind for f in redactor.findings] == [PATTERN]
    assert "config pattern 'ticket'" in redactor.rules


ORDINARY = [
    "The quick brown fox jumps over the lazy dog, and the key to it is patience.",
    "commit 3f786850e387550fdab836ed7e6dc881de23001b (HEAD -> main) fixed the token parser",
    "sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "def get_password(self):\n    return self.password  # the key is os.environ['KEY']",
    "key = 'user_profile_settings_v2'\ntoken = next_token(stream)\nsecret = None",
    "for key, value in mapping.items(): print(f'{key}={value}')",
    "password: ********   api_key = <your key here>   token=xxxxxxxxxxxxxxxx",
    "Use @property and @dataclass; install pkg@1.2.3 from npm; see task-ant-colony-simulator",
    "The monkey business of keyboard layouts; authors: see AUTHORS.md",
    "uuid 123e4567-e89b-12d3-a456-426614174000 and /usr/share/doc, /home is a folder",
    "tokenizer.encode(text) returns tokens; the secret sauce is caching",
]


@pytest.mark.parametrize("text", ORDINARY)
def test_no_false_positives_in_prose_code_and_hashes(text: str) -> None:
    redactor = Redactor(home=None)
    assert redactor.scrub(text, "x") == text, redactor.findings


def test_undone_findings_are_written_as_they_were_and_the_rest_redacted() -> None:
    key = "sk-" + rand(48)
    texts = [f"a {key} b", "mail ann@example.org", "/home/bob/x"]
    redactor = Redactor(home=None)
    first = [redactor.scrub(t, f"text {i}") for i, t in enumerate(texts)]
    assert [f.kind for f in redactor.findings] == [SECRET, EMAIL, HOME]
    assert [f.where for f in redactor.findings] == ["text 0", "text 1", "text 2"]
    redactor.reset(undone=[redactor.findings[1]])
    second = [redactor.scrub(t, f"text {i}") for i, t in enumerate(texts)]
    assert second[0] == first[0] and second[2] == first[2]
    assert second[1] == "mail ann@example.org"
    assert len(redactor.findings) == 3
    # A text met only in the second pass (a reply that went on streaming) is redacted.
    assert redactor.scrub("and bob@example.org", "text 3") == "and [redacted e-mail]"


def test_overlapping_rules_give_one_finding() -> None:
    redactor = Redactor(home=None)
    key = "sk-" + rand(40)
    out = redactor.scrub(f"OPENAI_API_KEY={key} https://u:{key}@h.example.com", "x")
    assert key not in out
    assert [f.rule for f in redactor.findings] == ["OpenAI key", "passwords in URLs"]


def test_mask_shows_at_most_a_quarter() -> None:
    assert mask("abcdefghijklmnop") == "abcd•••••• (16 chars)"
    assert mask("hunter2") == "h•••••• (7 chars)"
    assert mask("ab") == "•••••• (2 chars)"


def test_a_huge_text_is_scanned_in_linear_time() -> None:
    """No rule backtracks over a long run of key-like characters (a 2 MB base64 blob, a
    long dotted name, a run of key words): a quadratic rule would take hours here; the
    bound is loose for a busy machine."""
    import time

    blob = rand(1_000_000, string.ascii_letters + string.digits + "+/")
    dotted = "a." * 200_000
    started = time.perf_counter()
    Redactor(home=None).scrub(blob + "\n" + dotted + "\n" + "key" * 100_000, "x")
    assert time.perf_counter() - started < 20.0
