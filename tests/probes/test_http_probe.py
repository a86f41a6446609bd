"""probes.http against the real reflector, a rewriting app and misbehaving servers.

Every fact asserted here comes out of the real stack: httpx on the client side,
uvicorn (h11) and Starlette on the server side, over loopback sockets.
"""

from __future__ import annotations

import pytest
from _needs import need_module
from _support.servers import assert_paced, http_server

import fidelity
from fidelity import Direction, Payload, Status, UsageError


def payloads(*texts: str) -> list[Payload]:
    return [Payload(id=f"test/{i}", text=t, families=("escapes",)) for i, t in enumerate(texts)]


def by_text(survey: fidelity.Survey) -> dict[str, fidelity.Observation]:
    return {o.sent: o for o in survey.observations}


def part(observation: fidelity.Observation, direction: Direction) -> fidelity.Observation:
    (found,) = [p for p in observation.parts if p.direction is direction]
    return found


def http(url: str, **options: object) -> object:
    import probes

    return probes.http(url, **options)


# --- bad arguments ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "fragment"),
    [
        ({"send": "jsn:text"}, "valid forms are: json:PATH"),
        ({"send": "query:"}, "needs a name"),
        ({"send": "header:bad name"}, "not an HTTP token"),
        ({"read": "regex:(a)(b)"}, "exactly one group"),
        ({"read": "regex:("}, "not a valid regular expression"),
        ({"read": "form:x"}, "valid forms are: json:PATH, body, header:NAME, regex:PATTERN"),
        ({"send": "path"}, "exactly once"),
        ({"timeout": 0}, "timeout=0"),
        ({"concurrency": 0}, "concurrency=0"),
        ({"id_from": "json:id"}, "only used with read_url"),
        ({"read_url": "http://127.0.0.1:1/items/{id}"}, "needs id_from"),
        ({"default_encoding": "no-such-codec"}, "not a codec"),
    ],
)
def test_bad_arguments_are_usage_errors(options: dict[str, object], fragment: str) -> None:
    with pytest.raises(UsageError, match=None) as info:
        http("http://127.0.0.1:1/x", **options)
    assert fragment in str(info.value)


def test_value_placeholder_only_for_path_sends() -> None:
    with pytest.raises(UsageError, match="only send='path'"):
        http("http://127.0.0.1:1/{value}", send="json:text")
    with pytest.raises(UsageError, match="absolute http"):
        http("ftp://127.0.0.1/x")


# --- every send position against the reflector ---------------------------------------


def test_json_body_preserves_text_and_sends_lone_surrogates_as_escapes(
    reflector: object,
) -> None:
    with http(reflector.url + "reflect", send="json:a.text", read="json:a.text") as probe:  # type: ignore[attr-defined]
        survey = fidelity.survey(probe, payloads=payloads("“q” é€😀", "a\r\nb", "x\ud800y"))
    seen = by_text(survey)
    for text in ("“q” é€😀", "a\r\nb"):
        assert seen[text].status is Status.PRESERVED
        assert {p.direction for p in seen[text].parts} == {Direction.REQUEST, Direction.RESPONSE}
        assert all(p.status is Status.PRESERVED for p in seen[text].parts)
    surrogate = seen["x\ud800y"]
    # Sent as JSON.stringify sends it, an escape, so the server's answer is measured: the
    # reflector decodes it intact, and its JSONResponse cannot answer it (HTTP 500).
    assert not surrogate.client_side
    request = part(surrogate, Direction.REQUEST)
    assert request.status is Status.PRESERVED
    assert request.wire is not None
    assert b'"x\\ud800y"' in request.wire
    assert surrogate.status is Status.REJECTED
    assert "JSONResponse cannot encode" in surrogate.error
    response = part(surrogate, Direction.RESPONSE)
    assert response.status is Status.REJECTED
    assert not response.client_side


def test_query_plus_survives_httpx_but_not_naive_formatting(reflector: object) -> None:
    url = reflector.url  # type: ignore[attr-defined]
    with http(url + "reflect", send="query:text") as probe:
        encoded = by_text(fidelity.survey(probe, payloads=payloads("a+b", "a b", "x&y=z")))
    assert all(o.status is Status.PRESERVED for o in encoded.values())
    assert part(encoded["a+b"], Direction.REQUEST).wire == b"text=a%2Bb"  # httpx encodes '+'
    assert part(encoded["a b"], Direction.REQUEST).wire == b"text=a+b"
    with http(url + "reflect?text={value}", send="url") as probe:
        naive = by_text(fidelity.survey(probe, payloads=payloads("a+b", "x#frag")))
    plus = part(naive["a+b"], Direction.REQUEST)
    assert plus.status is Status.TRANSFORMED
    assert plus.received == "a b"
    assert plus.blame == "httpx (bytes sent)"  # the client put a bare '+' on the wire
    assert plus.kinds == {"unescape.url"}
    assert part(naive["a+b"], Direction.RESPONSE).status is Status.PRESERVED
    assert part(naive["x#frag"], Direction.REQUEST).received == "x"


def test_header_values_non_ascii_and_edge_whitespace_refused_by_client(reflector: object) -> None:
    name = "x-fidelity-text"
    url = reflector.url + "reflect"  # type: ignore[attr-defined]
    with http(url, send=f"header:{name}", read=f"header:{name}") as probe:
        seen = by_text(fidelity.survey(probe, payloads=payloads("a\tb", "é", "€", "  pad  ")))
    assert seen["a\tb"].status is Status.PRESERVED
    for text in ("é", "€", "  pad  "):
        assert seen[text].status is Status.REJECTED
        assert seen[text].client_side, text
    assert "ascii" in seen["é"].error  # httpx encodes header values as ASCII only
    assert "Illegal header value" in seen["  pad  "].error  # h11 refuses edge whitespace
    # Response path alone: Starlette sends latin-1 and httpx decodes it back ...
    assert part(seen["é"], Direction.RESPONSE).status is Status.PRESERVED
    # ... but cannot encode '€' at all, and h11 will not send edge whitespace.
    assert part(seen["€"], Direction.RESPONSE).status is Status.REJECTED
    assert part(seen["  pad  "], Direction.RESPONSE).status is Status.REJECTED


def test_multipart_filename_loses_its_directory(reflector: object) -> None:
    url = reflector.url + "reflect"  # type: ignore[attr-defined]
    with http(url, send="filename:file") as probe:
        seen = by_text(fidelity.survey(probe, payloads=payloads("C:\\Users\\me\\f.txt", "a/b.txt")))
    windows = part(seen["C:\\Users\\me\\f.txt"], Direction.REQUEST)
    assert windows.status is Status.TRANSFORMED
    assert windows.received == "f.txt"
    assert windows.kinds == {"path.basename"}
    assert part(seen["C:\\Users\\me\\f.txt"], Direction.RESPONSE).status is Status.PRESERVED
    assert seen["a/b.txt"].status is Status.PRESERVED


@pytest.mark.parametrize("send", ["form:text", "multipart:text", "body", "path"])
def test_other_positions_preserve_ordinary_text(reflector: object, send: str) -> None:
    url = reflector.url + ("reflect/{value}" if send == "path" else "reflect")  # type: ignore[attr-defined]
    read = "body" if send == "body" else "json:text"
    with http(url, send=send, read=read) as probe:
        seen = by_text(fidelity.survey(probe, payloads=payloads("a+b c/d", "“é€”")))
    for observation in seen.values():
        assert observation.status is Status.PRESERVED, (send, observation)
        assert part(observation, Direction.REQUEST).status is Status.PRESERVED


def test_text_plain_without_charset(reflector: object) -> None:
    url = reflector.url + "reflect"  # type: ignore[attr-defined]
    texts = payloads("we’ll café", "plain")
    # httpx decodes a text body without a charset as UTF-8 (its default_encoding), so
    # it does NOT follow the HTTP/1.1 latin-1 default: nothing changes.
    with http(url, send="body", read="body", emit_charset=None) as probe:
        default = by_text(fidelity.survey(probe, payloads=texts))
    assert default["we’ll café"].status is Status.PRESERVED
    # A client that follows the HTTP/1.1 default decodes it as latin-1.
    with http(url, send="body", read="body", emit_charset=None, default_encoding="latin-1") as p:
        latin = by_text(fidelity.survey(p, payloads=texts))
    response = part(latin["we’ll café"], Direction.RESPONSE)
    assert response.status is Status.TRANSFORMED
    assert response.received == "we’ll café".encode().decode("latin-1")
    assert response.kinds == {"encoding.mojibake"}
    assert part(latin["we’ll café"], Direction.REQUEST).status is Status.PRESERVED
    assert latin["plain"].status is Status.PRESERVED


def test_reflector_is_detected_without_the_flag(reflector: object) -> None:
    with http(reflector.url + "reflect") as probe:  # type: ignore[attr-defined]
        first, second = probe.observe_many(["“a”", "b"])
    for observation in (first, second):
        assert observation.status is Status.PRESERVED
        assert len(observation.parts) == 2


def test_concurrency_keeps_input_order(reflector: object) -> None:
    texts = [f"value {i} “{i}”" for i in range(40)]
    with http(reflector.url + "reflect", concurrency=4, reflector=True) as probe:  # type: ignore[attr-defined]
        seen = list(probe.observe_many(texts))
    assert [o.sent for o in seen] == texts
    assert [o.received for o in seen] == texts


@pytest.mark.parametrize("concurrency", [1, 3])
def test_rate_limit_spaces_requests(concurrency: int) -> None:
    need_module("starlette")
    import httpx

    rate = 10.0
    with http_server("counted") as url:
        with http(url + "reflect", rate=rate, concurrency=concurrency, reflector=True) as probe:
            seen = list(probe.observe_many(list("abcdef")))
        arrivals = httpx.get(url + "_count", timeout=10).json()["arrivals"]
    assert [o.status for o in seen] == [Status.PRESERVED] * 6
    assert len(arrivals) == probe.requests
    assert_paced(arrivals, rate)


# --- a rewriting app, write-then-read ------------------------------------------------


def test_rewriting_app_is_named_on_the_request_path_only() -> None:
    need_module("starlette")
    with http_server("quotes") as url, http(url + "reflect", send="json:text") as probe:
        seen = by_text(fidelity.survey(probe, payloads=payloads("say “hi” it’s", "plain")))
    rewritten = seen["say “hi” it’s"]
    request = part(rewritten, Direction.REQUEST)
    assert request.status is Status.TRANSFORMED
    assert request.received == 'say "hi" it\'s'
    assert request.kinds == {"quote.straighten"}
    assert request.blame == "uvicorn (bytes received)"  # the middleware rewrote the body
    assert part(rewritten, Direction.RESPONSE).status is Status.PRESERVED
    assert rewritten.status is Status.TRANSFORMED
    assert rewritten.kinds == {"quote.straighten"}
    assert seen["plain"].status is Status.PRESERVED


def test_write_then_read() -> None:
    need_module("starlette")
    with (
        http_server("store") as url,
        http(url + "items", read_url=url + "items/{id}", id_from="json:id") as probe,
    ):
        seen = list(probe.observe_many(["“stored” é", "second"]))
    assert [o.status for o in seen] == [Status.PRESERVED, Status.PRESERVED]
    assert seen[0].received == "“stored” é"
    assert not seen[0].parts  # not the reflector: one round trip


def test_http_error_is_rejected_with_a_safe_excerpt() -> None:
    need_module("starlette")
    with http_server("store") as url, http(url + "nowhere") as probe:
        observation = probe.observe("x")
    assert observation.status is Status.REJECTED
    assert observation.error.startswith("HTTP 404")


# --- misbehaving servers ----------------------------------------------------------------

TIMEOUT = 1.0


@pytest.mark.parametrize(
    ("mode", "status", "fragment"),
    [
        ("silent", Status.TIMEOUT, "not sent again"),
        ("drip", Status.TIMEOUT, "within 1s"),
        ("garbage", Status.BROKEN, "not JSON"),
        ("huge", Status.BROKEN, "max_body"),
        ("drop", Status.BROKEN, "failed mid-exchange"),
    ],
)
def test_misbehaving_servers_end_bounded(mode: str, status: Status, fragment: str) -> None:
    # A short timeout where the server never answers in full; a generous one where it
    # answers badly, so that a loaded machine cannot turn that into a timeout.
    bound = TIMEOUT if status is Status.TIMEOUT else 30.0
    with http_server(mode) as url, http(url, timeout=bound, max_body=1024 * 1024) as probe:
        observation = probe.observe("payload")
    assert observation.status is status, observation
    assert fragment in observation.error
    assert fidelity.safe(observation.error) == observation.error  # terminal-safe


def test_connection_refused_is_broken() -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # bound, never listening: connections are refused
        with http(f"http://127.0.0.1:{port}/", timeout=TIMEOUT) as probe:
            observation = probe.observe("x")
    assert observation.status is Status.BROKEN
    assert observation.error.startswith("could not connect to http://127.0.0.1:")
