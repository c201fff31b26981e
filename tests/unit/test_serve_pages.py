"""How toolcat serve pages its tools/list (toolcat.features.serve.view.View.pages): one page, every
tool and the handbook tool last, however the upstreams paged theirs (issue 33 item 5);
only a list larger than PAGE_BYTES is split at tool boundaries, the handbook tool on the
first page."""

from __future__ import annotations

from toolcat.document.canonical import dumps
from toolcat.features.serve import view as v


def _view(sizes: list[int], pages: list[int] | None = None) -> v.View:
    tools = [{"name": f"t{i}", "description": "x" * n, "inputSchema": {"type": "object"}}
             for i, n in enumerate(sizes)]
    part = v.Part(prefix=None, label="s", listed=tools, upstream=tools,
                  pages=pages or [len(tools)])
    return v.View(tools=tools + [v.handbook_tool("book")], handbook={}, handbook_name="book",
                  parts=[part])


def test_one_page_whatever_the_upstream_paged():
    view = _view([10] * 7, pages=[3, 3, 1])
    assert view.pages() == [view.tools]
    assert view.page_of("toolcat-0-1", 0) is None


def test_a_list_beyond_page_bytes_is_split_with_the_handbook_first(monkeypatch):
    monkeypatch.setattr(v, "PAGE_BYTES", 1000)
    view = _view([300] * 9 + [2000, 10])
    pages = view.pages()
    assert len(pages) > 1
    assert pages[0][-1]["name"] == "book"
    assert [t for p in pages for t in p if t["name"] != "book"] == view.tools[:-1]
    for page in pages:
        size = sum(len(dumps(t)) + 1 for t in page)
        assert size <= 1000 or len(page) == 1, [t["name"] for t in page]
    index = view.page_of("toolcat-0-1", 0)
    assert index == 1 and view.page_of(f"toolcat-0-{len(pages)}", 0) is None
