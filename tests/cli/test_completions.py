"""completions/: current with the CLI (regenerated here), valid shell, and they complete.

Each shell is driven for real where it is installed: bash through its completion function
(COMP_WORDS/COMP_CWORD), fish through `complete -C`, zsh through a pseudo-terminal (zpty) and
a Tab key press. zsh and fish tests skip when the shell is absent; bash always runs.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

from support.common import REPO

COMPLETIONS = REPO / "completions"


def _generator():
    spec = importlib.util.spec_from_file_location("gen_completions",
                                                  REPO / "scripts" / "gen_completions.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look the module up
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def gen():
    return _generator()


def test_committed_completions_are_current(gen):
    rendered = gen.render_all()
    assert set(rendered) == {"toolcat.bash", "_toolcat", "toolcat.fish"}
    stale = [name for name, text in rendered.items()
             if (COMPLETIONS / name).read_text() != text]
    assert not stale, f"stale: {stale}; run: python scripts/gen_completions.py"


def test_check_mode_reports_stale_files(gen, tmp_path):
    assert gen.main(["--out", str(tmp_path)]) == 0
    assert gen.main(["--check", "--out", str(tmp_path)]) == 0
    (tmp_path / "toolcat.fish").write_text("# old\n")
    assert gen.main(["--check", "--out", str(tmp_path)]) == 1


def test_choices_match_the_help_texts(gen):
    """Each value offered for an option is named in that option's --help text (in this
    command, or in another command where this one's help does not list them); rule codes
    are checked against the registry instead."""
    from toolcat.features.lint import registry

    root, cmds = gen.model_cli()
    codes = set(registry.codes())
    helps: dict[str, str] = {}
    for c in cmds:
        for o in c.options:
            helps[o.long] = helps.get(o.long, "") + " " + o.full_help
    checked = 0
    for c in cmds:
        for o in c.options:
            if o.kind != "choice" or set(o.choices) == codes:
                continue
            text = o.full_help if o.long == "--format" else helps[o.long]
            for v in o.choices:
                assert re.search(rf"(?<![\w-]){re.escape(v)}(?![\w-])", text), (c.name, o.long, v)
                checked += 1
    assert checked > 30


def test_bash_syntax():
    r = subprocess.run(["bash", "-n", str(COMPLETIONS / "toolcat.bash")], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr


def _bash_complete(*words: str) -> list[str]:
    """COMPREPLY of the completion function for a command line whose last word is `words[-1]`."""
    quoted = " ".join("'" + w.replace("'", "'\\''") + "'" for w in words)
    script = (f"source {COMPLETIONS / 'toolcat.bash'}\n"
              f"COMP_WORDS=({quoted}); COMP_CWORD={len(words) - 1}\n"
              "_toolcat toolcat\n"
              "printf '%s\\n' \"${COMPREPLY[@]}\"\n")
    r = subprocess.run(["bash", "--norc", "--noprofile", "-c", script], capture_output=True,
                       text=True, cwd=REPO)
    assert r.returncode == 0, r.stderr
    return [x for x in r.stdout.splitlines() if x]


def test_bash_completes_commands_options_and_values():
    assert _bash_complete("toolcat", "") == ["tools", "project", "lint", "diff",
                                             "diff-toolids", "measure", "capture", "serve",
                                             "rule"]
    assert _bash_complete("toolcat", "li") == ["lint"]
    assert _bash_complete("toolcat", "--no-color", "me") == ["measure"]
    assert "--fail-on" in _bash_complete("toolcat", "lint", "--f")
    assert set(_bash_complete("toolcat", "lint", "--format", "")) == {
        "text", "concise", "json", "markdown", "sarif", "github", "junit"}
    assert _bash_complete("toolcat", "lint", "-f", "s") == ["sarif"]
    assert _bash_complete("toolcat", "measure", "--gate", "=", "b") == ["before"]
    assert _bash_complete("toolcat", "measure", "--format", "") == ["table", "json",
                                                                    "markdown", "csv"]
    assert _bash_complete("toolcat", "project", "--to", "open") == ["openwop", "openai",
                                                                    "openai-strict",
                                                                    "openai-responses"]
    assert "TC101" in _bash_complete("toolcat", "rule", "TC")
    assert "CS203" in _bash_complete("toolcat", "lint", "--ignore", "CS2")
    # live servers: the same options on every command that reads catalogs
    for cmd in ("tools", "project", "lint", "diff-toolids", "measure", "capture"):
        assert _bash_complete("toolcat", cmd, "--client", "claude-") == ["claude-desktop",
                                                                         "claude-code"], cmd
        assert {"--server", "--url", "--header", "--timeout", "--client-config"} <= \
            set(_bash_complete("toolcat", cmd, "--")), cmd
    assert {"--server", "--url", "--header", "--timeout", "--call-timeout", "--handbook-tool",
            "--description-max", "--keep-titles", "--no-output-schema"} <= \
        set(_bash_complete("toolcat", "serve", "--"))
    # catalog paths and output files: left to bash's file completion (complete -o default)
    assert _bash_complete("toolcat", "lint", "samp") == []
    assert _bash_complete("toolcat", "project", "x.yaml", "-o", "") == []


@pytest.mark.skipif(not shutil.which("fish"), reason="fish is not installed")
def test_fish():
    f = COMPLETIONS / "toolcat.fish"
    r = subprocess.run(["fish", "--no-execute", str(f)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr

    def complete(line: str) -> list[str]:
        r = subprocess.run(["fish", "--no-config", "-c", f"source {f}; complete -C '{line}'"],
                           capture_output=True, text=True, cwd=REPO)
        assert r.returncode == 0, r.stderr
        return [x.split("\t")[0] for x in r.stdout.splitlines()]

    assert complete("toolcat li") == ["lint"]
    assert set(complete("toolcat lint --format ")) == {"text", "json", "sarif", "github",
                                                       "junit"}
    assert "--max-tokens" in complete("toolcat measure --max-t")
    assert "samples/petstore.openapi.yaml" in complete("toolcat lint samples/pet")
    assert "TC107" in complete("toolcat rule TC10")


ZSH_DRIVER = r"""
zmodload zsh/zpty
zpty z zsh -f -i
setup="bindkey -e; PS1='> '; fpath=($1 \$fpath); autoload -U compinit; compinit -u -D"
setup+="; zstyle ':completion:*' format '#%d'; LISTMAX=1000; toolcat() { : }; print READY"
zpty -w z "$setup"
for i in {1..50}; do
  zpty -r -t z chunk && [[ $chunk == *READY* ]] && break
  sleep 0.1
done
zpty -w -n z "$2"$'\t'
sleep 1.5
out=
while zpty -r -t z chunk; do out+=$chunk; done
print -r -- "$out"
zpty -d z
"""


@pytest.mark.skipif(not shutil.which("zsh"), reason="zsh is not installed")
def test_zsh(tmp_path):
    f = COMPLETIONS / "_toolcat"
    r = subprocess.run(["zsh", "-n", str(f)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    driver = tmp_path / "driver.zsh"
    driver.write_text(ZSH_DRIVER)

    def complete(line: str) -> str:
        r = subprocess.run(["zsh", "-f", str(driver), str(COMPLETIONS), line],
                           capture_output=True, text=True, cwd=REPO, timeout=30)
        return re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]", "", r.stdout).replace("\r", "\n")

    lines = ["toolcat ", "toolcat lint --format ", "toolcat rule TC10", "toolcat measure --g"]
    with ThreadPoolExecutor(len(lines)) as pool:   # each run has its own timeout (a hang)
        commands, formats, codes, gate = pool.map(complete, lines)
    for name in ("tools", "project", "lint", "diff-toolids", "measure", "rule"):
        assert re.search(rf"\b{name}\b", commands), commands
    assert "Check catalogs for conformance" in commands  # the descriptions
    assert re.search(r"\bdiff\b(?!-)", commands), commands
    assert re.search(r"github\s+json\s+junit\s+sarif\s+text", formats), formats
    assert "TC101" in codes and "TC109" in codes, codes
    assert "toolcat measure --gate" in gate, gate  # the only match, inserted
