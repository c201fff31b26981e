"""Description quality (MR405-MR408, MC110) and the description score, on real catalogs of the
shared and outside corpora: each rule's hits, a near miss it must leave alone, the score's
formula, `lint --statistics`/`--min-score` and `measure`."""

from __future__ import annotations

import dataclasses
import json

import pytest

from support.common import corpus, run_toolcat
from support.lint import mcp, write
from support.outside import outside
from toolcat import api
from toolcat.cli import run as cli_run
from toolcat.features.lint import quality as q

CODES = ["MR405", "MR406", "MR407", "MR408", "MC110"]


def hits(path, code: str) -> list[tuple[str, str, str]]:
    """(tool, pointer, message) of every ``code`` finding on ``path``."""
    res = api.lint(api.load_all([str(path)]), select=[code])
    return [(f.tool, f.pointer, f.message) for f in res.findings if f.code == code]


def cc(name: str):
    return corpus("mcp-context-cost", name)


# ----------------------------------------------------------------------------- MR405


def test_mr405_descriptions_that_restate_the_name_or_say_too_little() -> None:
    got = {t: m for t, _p, m in hits(cc("xcodebuildmcp.json"), "MR405")}
    assert "only restates the name" in got["record_sim_video"]     # "Record sim video."
    assert "only restates the name" in got["stop_app_sim"]         # "Stop sim app."
    assert "2 words" in got["screenshot"]                          # "Capture screenshot."
    assert [t for t, _p, _m in hits(cc("git.json"), "MR405")] == ["git_checkout"]
    gh = {t for t, _p, _m in hits(corpus("github-mcp-server"), "MR405")}
    assert {"get_global_security_advisory", "list_starred_repositories"} <= gh
    # near misses: a description that adds to the name, even a short one
    assert not hits(cc("filesystem.json"), "MR405")
    sb = {t for t, _p, _m in hits(cc("supabase.json"), "MR405")}
    assert "list_edge_functions" not in sb     # "Lists all Edge Functions in a Supabase project."
    assert sb == {"get_project_url"}           # "Gets the API URL for a project."


def test_mr405_a_tool_named_rather_than_an_action() -> None:
    assert "names a tool" in q.purpose_problem("jira", "Tool for Jira issues")
    assert "names a tool" in q.purpose_problem("gh", "GitHub API wrapper.")
    assert q.purpose_problem("gh", "Wraps the GitHub API to open issues.") is None
    assert q.purpose_problem("gh", "") is None          # TC107's


# ----------------------------------------------------------------------------- MR406/407


def test_mr406_near_twins_and_what_tells_tools_apart() -> None:
    got = hits(cc("filesystem.json"), "MR406")
    assert [(t, p) for t, p, _m in got] == [("list_directory_with_sizes", "/description")]
    assert "'list_directory'" in got[0][2]
    # near misses of the same measure: the description names the other tool (GitHub's
    # assign_copilot_to_issue_with_intent: "Prefer this tool over assign_copilot_to_issue")
    gh = {t for t, _p, _m in hits(corpus("github-mcp-server"), "MR406")}
    assert gh == set()
    cats = api.load_all([str(corpus("github-mcp-server"))])
    tools = q.linted_tools(cats[0].tools)
    sib = q.Siblings(tools)
    ids = {(tools[i].id, tools[j].id): c for i, j, c in sib.pairs}
    pair = ("assign_copilot_to_issue", "assign_copilot_to_issue_with_intent")
    assert ids.get(pair) or ids.get(pair[::-1]) >= q.SAME


def test_mr406_families_told_apart_by_namespace_verb_or_object() -> None:
    path = outside("docker-zscaler-mcp-server")
    got = {t for t, _p, _m in hits(path, "MR406")}
    # "List ZTW IP source groups (read-only)" / "... in lite format (read-only)": variants
    assert "ztw_list_ip_source_groups_lite" in got
    # zia_/ztw_ (two products), get_/list_ (two verbs): told apart
    assert not {"ztw_list_ip_source_groups", "zia_list_ip_source_groups",
                "zia_list_ssl_inspection_rules"} & got


def test_mr407_close_siblings_without_guidance() -> None:
    got = {t for t, _p, _m in hits(cc("mongodb.json"), "MR407")}
    assert got == {"aggregate", "aggregate-db"}
    # the filesystem twins each have a phrase of scope ("Only works within allowed
    # directories", "useful for"): counted as guidance; MR406 reports the pair
    assert not {t for t, _p, _m in hits(cc("filesystem.json"), "MR407")}
    assert q.guided("Use this instead of list_issues to search by keyword.")
    assert not q.guided("Lists the issues of a repository.")


# ----------------------------------------------------------------------------- MR408


def test_mr408_parameters_whose_meaning_is_nowhere() -> None:
    got = {(t, p.rsplit("/", 1)[1]) for t, p, _m in hits(cc("desktop-commander.json"), "MR408")}
    assert got == {("read_file", "options"), ("edit_block", "options")}
    fc = {(t, p.rsplit("/", 1)[1]) for t, p, _m in hits(cc("firecrawl.json"), "MR408")}
    assert ("firecrawl_research_related_papers", "k") in fc
    # near miss: `body` of create_issue and `q` of search_code take their meaning from the
    # tool's name (github-legacy has no description on either)
    gl = {(t, p.rsplit("/", 1)[1]) for t, p, _m in hits(cc("github-legacy.json"), "MR408")}
    assert gl == set()
    assert q.opaque_parameter("run", "id", {"type": "string"})
    assert not q.opaque_parameter("get_issue", "id", {"type": "string"})
    assert not q.opaque_parameter("x", "value", {"type": "string", "enum": ["a", "b"]})


# ----------------------------------------------------------------------------- MC110


def test_mc110_write_named_tools_without_behaviour_hints() -> None:
    got = {t for t, _p, _m in hits(cc("github-legacy.json"), "MC110")}
    assert {"create_issue", "push_files", "merge_pull_request"} <= got
    assert not {"get_issue", "list_commits", "search_code"} & got
    # the current GitHub server annotates every tool: nothing to report
    assert not hits(corpus("github-mcp-server"), "MC110")


def test_mc110_read_only_hint_on_a_deleting_tool(tmp_path) -> None:
    p = write(tmp_path, mcp(
        {"name": "delete_note", "description": "Deletes a note by id.",
         "annotations": {"readOnlyHint": True}, "inputSchema": {"type": "object"}},
        {"name": "event_get_trigger", "description": "Reads an event trigger.",
         "inputSchema": {"type": "object"}},
        {"name": "create_note", "description": "Creates a note.",
         "annotations": {"destructiveHint": False}, "inputSchema": {"type": "object"}}))
    got = hits(p, "MC110")
    assert [(t, ptr) for t, ptr, _m in got] == [("delete_note", "/annotations")]
    assert "readOnlyHint: true" in got[0][2]


# ----------------------------------------------------------------------------- the score


def test_score_formula_on_a_small_catalog(tmp_path) -> None:
    p = write(tmp_path, mcp(
        # restates its name (-40); 1 of its 2 parameters undocumented (-10) and opaque (-5)
        {"name": "get_user", "description": "Gets a user.",
         "inputSchema": {"type": "object", "properties": {
             "login": {"type": "string", "description": "The user's login."},
             "value": {"type": "string"}}}},
        # writes without hints (-10)
        {"name": "create_report", "description": "Creates a PDF report of the sales of a month.",
         "inputSchema": {"type": "object", "properties": {
             "month": {"type": "string", "description": "YYYY-MM."}}}}))
    sc = q.score(api.load_all([str(p)]))
    assert [t.score for t in sc.tools] == [45.0, 90.0]
    assert sc.score == 67.5 and sc.catalogs[0][1:] == (67.5, 2)
    assert sc.lost() == {"purpose": 20.0, "ambiguous": 0.0, "unguided": 0.0,
                         "undocumented": 5.0, "opaque": 2.5, "hints": 5.0}


def test_statistics_and_min_score_gate(capfd) -> None:
    path = str(cc("filesystem.json"))
    sc = q.score(api.load_all([path]))
    assert 0 < sc.score < 100
    assert cli_run(["lint", path, "--statistics"]) == 0
    out = capfd.readouterr()[0]
    assert f"Description score {sc.score:.1f}/100 (14 tools; lost: " in out
    assert cli_run(["lint", path, "--statistics", "--format", "json"]) == 0
    data = json.loads(capfd.readouterr()[0])
    assert data["score"]["score"] == sc.score and data["score"]["tools"] == 14
    # the gate: each catalog's score against --min-score (or the config's min-score)
    assert cli_run(["lint", path, "--min-score", str(sc.score)]) == 0
    capfd.readouterr()
    assert cli_run(["lint", path, "--min-score", str(sc.score + 0.1)]) == 1
    err = capfd.readouterr()[1]
    assert f"description score {sc.score:.1f} is under --min-score" in err
    assert cli_run(["lint", path, "--min-score", "101"]) == 2
    assert "--min-score must be a number from 0 to 100" in capfd.readouterr()[1]


def test_min_score_from_the_config(tmp_path) -> None:
    path = str(cc("filesystem.json"))
    cfg = tmp_path / "toolcat.toml"
    cfg.write_text("min-score = 99\n")
    r = run_toolcat("lint", path, "--config", str(cfg), "-q")
    assert r.returncode == 1 and b"under --min-score 99" in r.stderr
    cfg.write_text("min-score = 'high'\n")
    r = run_toolcat("lint", path, "--config", str(cfg), "-q")
    assert r.returncode == 2 and b"min-score must be a number" in r.stderr


def test_measure_shows_the_score() -> None:
    path = str(cc("filesystem.json"))
    sc = q.score(api.load_all([path]))
    r = run_toolcat("measure", path, "--format", "json")
    data = json.loads(r.stdout)
    assert data["catalogs"][0]["description_score"] == sc.score
    assert data["total"]["description_score"] == sc.score
    r = run_toolcat("measure", path)
    assert f"description score: {sc.score:.1f}/100".encode() in r.stdout


def test_corpus_exit_codes_unchanged() -> None:
    """The new rules are info: lint of a capture exits as it did under --fail-on error and
    --fail-on warning (all 90 MCP catalogs: scripts/rule_hits.py exits)."""
    for name in ("filesystem.json", "mongodb.json", "desktop-commander.json"):
        cats = api.load_all([str(cc(name))])
        res = api.lint(cats)
        new = [f for f in res.findings if f.code in CODES]
        assert new and all(f.severity == "info" for f in new)
        base = api.lint(cats, ignore=CODES)
        for level in ("error", "warning"):
            assert res.failed(level) == base.failed(level)


def test_siblings_compare_few_pairs_on_a_large_catalog() -> None:
    """Cloudflare's API (1,521 operations): the inverted index compares a small share of
    the pairs, and six renamed copies of it (9,126 tools) still far fewer than all."""
    cat = api.load(str(outside("cloudflare-2024-07")))
    tools = q.linted_tools(cat.tools)
    n = len(tools)
    assert n > 1500
    sib = q.Siblings(tools)
    assert sib.compared < n * (n - 1) / 2 / 5
    many = [dataclasses.replace(t, id=f"{t.id}_{k}") for k in range(6) for t in tools]
    big = q.Siblings(many)
    assert big.compared < len(many) * (len(many) - 1) / 2 / 5


@pytest.mark.parametrize("code", CODES)
def test_rule_docs(code) -> None:
    from toolcat.features.lint.registry import get

    r = get(code)
    assert r is not None and r.severity == "info" and len(r.doc) > 300


def test_streamed_catalog_siblings_hold_no_schemas(tmp_path, monkeypatch, capsys) -> None:
    """A streamed tools list (read a batch at a time) is compared by name and description:
    the siblings' tools keep no schemas (they held the whole catalog at once: lint's memory
    grew with the catalog), and the findings are those of the catalog read whole."""
    tools = [t.raw for t in api.load(str(cc("xcodebuildmcp.json"))).tools]
    assert len(tools) > 20
    f = tmp_path / "tools.json"
    f.write_text(json.dumps({"tools": tools}))
    outs = []
    held: list = []
    init = q.Siblings.__init__

    def spy(self, ts, light=None, fetch=None):
        init(self, ts, light, fetch)
        held.append(callable(ts))
        held.extend(self.tools.values() if isinstance(self.tools, dict) else self.tools)

    monkeypatch.setattr(q.Siblings, "__init__", spy)
    for threshold in ("1", str(1 << 30)):
        monkeypatch.setenv("TOOLCAT_STREAM_THRESHOLD", threshold)
        held.clear()
        cli_run(["lint", "--format", "json", str(f)])
        outs.append(capsys.readouterr().out)
        if threshold == "1":
            # read anew from the file (not held), and the tools kept carry no schema
            assert held and held[0] is True
            assert all(t.input_schema is None and t.raw is None for t in held[1:])
    assert outs[0] == outs[1]
    assert '"MR406"' in outs[0] or '"MR405"' in outs[0]


def _full_vectors(tools) -> tuple[list, dict]:
    """Each tool's TF-IDF vector of norm 1, and each word's document frequency (the
    measure's definition, computed plainly)."""
    import math

    bags = [q._bag(t) for t in tools]
    df: dict = {}
    for b in bags:
        for w in b:
            df[w] = df.get(w, 0) + 1
    n = len(tools)
    vecs = []
    for b in bags:
        v = {w: (1.0 + math.log(c)) * (math.log((n + 1) / (df[w] + 1)) + 1.0) for w, c in b.items()}
        norm = math.sqrt(sum(x * x for x in v.values())) or 1.0
        vecs.append({w: x / norm for w, x in v.items()})
    return vecs, df


def _pairs_compared_in_full(tools) -> list:
    """The pairs as every candidate's full cosine gives them (the measure, unpruned): the
    candidates of a tool share a word that 2 to COMMON_CAP tools hold."""
    vecs, df = _full_vectors(tools)
    n = len(tools)
    out = []
    for i in range(n):
        for j in range(i + 1, n):
            if tools[j].id == tools[i].id or not any(
                    w in vecs[j] and df[w] <= q.COMMON_CAP for w in vecs[i]):
                continue
            v, u = vecs[i], vecs[j]
            small, big = (v, u) if len(v) <= len(u) else (u, v)
            cos = sum(x * big[w] for w, x in small.items() if w in big)
            if cos >= q.CLOSE:
                out.append((i, j, round(cos, 4)))
    return out


def test_siblings_bound_keeps_every_pair_of_the_full_comparison() -> None:
    """The candidates' cosines are bounded before the full vectors are compared (and a
    streamed catalog is read twice, keeping only the tools that may pair): the pairs are
    exactly those of every candidate's full cosine, on the captures with the most pairs."""
    seen = 0
    for name in ("filesystem.json", "desktop-commander.json", "mongodb.json"):
        tools = q.linted_tools(api.load(str(cc(name))).tools)
        want = _pairs_compared_in_full(tools)
        sib = q.Siblings(tools)
        assert sib.pairs == want, name
        streamed = q.Siblings(lambda: enumerate(tools), light=q._light,
                              fetch=tools.__getitem__)
        assert streamed.pairs == want and streamed.best == sib.best, name
        assert set(streamed.tools) == {i for p in want for i in p[:2]}
        seen += len(want)
    gh = q.linted_tools(api.load_all([str(corpus("github-mcp-server"))])[0].tools)
    want = _pairs_compared_in_full(gh)
    assert q.Siblings(gh).pairs == want
    seen += len(want)
    assert seen >= 5


@pytest.mark.parametrize("rest", [0, q._LOOKUP_REST, 10 ** 9])
def test_siblings_prefix_lookup_keeps_every_pair_of_the_full_comparison(rest, monkeypatch
                                                                      ) -> None:
    """The candidates are looked up by a tool's rarer words only (until the norm of the
    others cannot reach CLOSE), or by all of them when the rest holds few tools (``rest``:
    0, never; 10**9, always once the prefix is found): the pairs, each tool's closest
    sibling and the streamed catalog's are those of every candidate's full cosine, on
    OpenAPI specs (long descriptions: a short prefix) and on a family of tools that share
    most of their words, many held by more than COMMON_CAP tools (the Kubernetes shape)."""
    from toolcat.model import Tool

    monkeypatch.setattr(q, "_LOOKUP_REST", rest)

    kinds = ["pod", "service", "secret", "config map", "node", "lease", "event", "job",
             "cron job", "deployment", "replica set", "stateful set", "daemon set",
             "ingress", "role", "role binding", "endpoint", "namespace", "volume", "quota"]
    family = [Tool(id=f"{verb}_core_v1_namespaced_{kind.replace(' ', '_')}{v}",
                   description=f"{verb} the specified {kind} of the namespace"
                               f"{' (version ' + str(v) + ')' if v else ''}; core v1 api "
                               f"object of kind {kind.title().replace(' ', '')}")
              for verb in ("read", "patch", "replace", "delete")
              for kind in kinds for v in range(3)]
    catalogs = [q.linted_tools(api.load(str(corpus("openapi", name))).tools)
                for name in ("box.openapi.json", "openai.openapi.yaml")] + [family]
    seen = 0
    for tools in catalogs:
        want = _pairs_compared_in_full(tools)
        sib = q.Siblings(tools)
        assert sib.pairs == want
        best: dict = {}
        for i, j, cos in want:
            for a, b in ((i, j), (j, i)):
                if a not in best or cos > best[a][1]:
                    best[a] = (b, cos)
        assert sib.best == best
        streamed = q.Siblings(lambda t=tools: enumerate(t), light=q._light,
                              fetch=tools.__getitem__)
        assert streamed.pairs == want and streamed.best == best
        seen += len(want)
    assert seen > 100


def test_purpose_of_a_long_description_reads_its_words_as_far_as_needed() -> None:
    """A long description's words are read one at a time (up to the first that is not the
    name's, and nine for the count): the answers of the whole list of words."""
    long_name = "List issues, " * 30
    assert len(long_name) > 240
    assert q.purpose_problem("list_issues", long_name) == \
        f"the description {q._quote(q._collapsed(long_name))} only restates the name"
    two = "a" * 130 + " " + "b" * 130
    assert q.purpose_problem("get_thing", two) == \
        f"the description {q._quote(two)} is 2 words"
    nine = " ".join(["word"] * 8 + ["x" * 240])
    assert q.purpose_problem("get_thing", nine) is None
    many = "Returns the thing " + "and more " * 40
    assert q.purpose_problem("get_thing", many) is None


def test_siblings_compare_in_full_only_the_pairs_that_may_pair() -> None:
    """A streamed catalog's tool is read again from the file (parsed anew) only for a pair
    whose cosine the words kept in memory cannot rule out: the exact product of the two
    tools' indexed words (held by 2 to COMMON_CAP tools) plus the norms of their commoner
    words. (The prefix lookup's looser bound let ~20 candidates a tool through on a
    generated catalog: a streamed 10k lint read its tools 185,000 times, 3x its CPU; held,
    the 10k catalog's Siblings computed 341,702 full cosines, none a pair.)"""
    import math
    import sys

    from support.common import REPO
    from toolcat.model import Tool

    sys.path.insert(0, str(REPO / "bench"))
    try:
        import gen_catalog
    finally:
        sys.path.pop(0)
    raw = gen_catalog.gen_mcp(1500, 7)["tools"]
    # (and 30 tools that say what another says: pairs to find)
    tools = q.linted_tools([Tool(id=t["name"], description=t.get("description")) for t in raw]
                           + [Tool(id=f"{t['name']}_again", description=t.get("description"))
                              for t in raw[::50]])
    vecs, df = _full_vectors(tools)
    n = len(tools)
    indexed = [{w: x for w, x in v.items() if 1 < df[w] <= q.COMMON_CAP} for v in vecs]
    common = [math.sqrt(sum(x * x for w, x in v.items() if df[w] > q.COMMON_CAP))
              for v in vecs]
    may = 0     # tools read again at most: each i with a pair that may pair, and each j
    for i in range(n):
        js = [j for j in range(i + 1, n)
              if sum(x * indexed[j].get(w, 0.0) for w, x in indexed[i].items())
              + common[i] * common[j] >= q.CLOSE - 1e-6]
        may += len(js) + (1 if js else 0)
    reads = []

    def fetch(k: int):
        reads.append(k)
        return tools[k]

    streamed = q.Siblings(lambda: enumerate(tools), light=q._light, fetch=fetch)
    assert len(streamed.pairs) >= 30 and 0 < len(reads) <= may, (len(reads), may)
    # held in memory, the full cosines computed are as few
    held = q.Siblings(tools)
    assert held.pairs == streamed.pairs and held.compared <= may, (held.compared, may)
