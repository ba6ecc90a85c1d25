"""Where a URL goes, as a browser resolves it (acp_tui.text.url_host): the host the dialog
shows for the person to judge, for every trick that makes a URL read as another site."""

from __future__ import annotations

import pytest

from acp_tui.text.url_host import SiteHost, site_host


@pytest.mark.parametrize(
    ("url", "host"),
    [
        ("https://example.com/a?b=c", "example.com"),
        ("HTTPS://EXAMPLE.COM:8443/x", "example.com"),
        # user info before the last @ is not the host
        ("https://trusted.example@evil.example/", "evil.example"),
        ("https://trusted.example:pw@evil.example/", "evil.example"),
        # a backslash is a slash, any run of them after the scheme is skipped
        ("https://evil.example\\@trusted.example/", "evil.example"),
        ("https:\\\\evil.example\\path", "evil.example"),
        ("https:////evil.example", "evil.example"),
        ("https:evil.example/login", "evil.example"),
        # tabs and line breaks anywhere are dropped; controls and spaces around stripped
        ("https://evil.exa\tmple/", "evil.example"),
        ("https://evil.example\n/@trusted.example", "evil.example"),
        ("\x00 https://evil.example/ \x1f", "evil.example"),
        # percent-encoding in the host is decoded; full-width letters and dots mapped
        ("http://%65vil.example/", "evil.example"),
        ("https://ＥＶＩＬ．example/", "evil.example"),
        # a host ending in a number is an IPv4 address in any form
        ("http://0x7f.1/", "127.0.0.1"),
        ("http://2130706433/", "127.0.0.1"),
        ("http://0177.0.0.1/", "127.0.0.1"),
        ("http://127.1/", "127.0.0.1"),
        ("http://192.168.0.1./", "192.168.0.1"),
        ("https://[::1]:8080/", "[::1]"),
    ],
)
def test_the_host_is_the_one_a_browser_goes_to(url: str, host: str) -> None:
    site = site_host(url)
    assert site is not None
    assert site.host == host
    assert not site.problem


@pytest.mark.parametrize(
    ("url", "host", "scripts"),
    [
        ("https://\u0430pple.com/", "xn--pple-43d.com", ("Cyrillic", "Latin")),  # Cyrillic а
        ("https://p\u0430ypal.example/", "xn--pypal-4ve.example", ("Cyrillic", "Latin")),
        ("https://g\u03bfogle.com/", "xn--gogle-rce.com", ("Greek", "Latin")),  # Greek ο
        ("https://xn--pple-43d.com/", "xn--pple-43d.com", ("Cyrillic", "Latin")),
    ],
)
def test_a_name_that_mixes_scripts_is_shown_in_punycode_only(
    url: str, host: str, scripts: tuple[str, ...]
) -> None:
    assert site_host(url) == SiteHost(host, mixed_scripts=scripts)


@pytest.mark.parametrize(
    ("url", "host", "spelt"),
    [
        ("https://пример.рф/", "xn--e1afmkfd.xn--p1ai", "пример.рф"),
        ("https://münchen.example/", "xn--mnchen-3ya.example", "münchen.example"),
        ("https://例え.jp/", "xn--r8jz45g.jp", "例え.jp"),  # Han and Hiragana go together
        ("https://한국.kr/", "xn--3e0b707e.kr", "한국.kr"),
    ],
)
def test_a_name_in_one_script_per_label_is_punycode_first_and_spelt_beside(
    url: str, host: str, spelt: str
) -> None:
    assert site_host(url) == SiteHost(host, unicode=spelt)


@pytest.mark.parametrize(
    "url",
    [
        "https://a b.example/",
        "https://a<b.example/",
        "http://256.1.1.1/",
        "https://%2f.x/",
        "https://good.example\nSite: bank.example (verified)",
    ],
)
def test_a_host_a_browser_refuses_says_so(url: str) -> None:
    site = site_host(url)
    assert site is not None and site.problem


@pytest.mark.parametrize("url", ["mailto:a@b.example", "javascript:alert(1)", "no-scheme"])
def test_no_host_is_none(url: str) -> None:
    assert site_host(url) is None


def test_a_url_without_a_host_says_so() -> None:
    assert site_host("https:///") == SiteHost("", problem="no host")
