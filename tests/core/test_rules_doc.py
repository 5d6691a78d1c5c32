"""docs/rules.md is the project's own rule book: every rule id the code, tests,
CLI and reports cite is defined there, every rule id there has a test naming it,
every **[choice]** names its rule parameter, and no test or document points
outside the repository."""
import re
from pathlib import Path

from ttrsim.data.rules import PARAMS

ROOT = Path(__file__).resolve().parents[2]
RULES_DOC = ROOT / "docs" / "rules.md"
ENTRY = re.compile(r"^- \*\*(R\d+(?:\.\d+)?)\*\*(.*?)(?=^- \*\*R|^#|\Z)", re.S | re.M)
CITED = re.compile(r"\bR(\d+)[._](\d+)\b")


def entries() -> dict[str, str]:
    return {m.group(1): m.group(2) for m in ENTRY.finditer(RULES_DOC.read_text(encoding="utf-8"))}


def test_rule_doc_defines_every_rule_once():
    text = RULES_DOC.read_text(encoding="utf-8")
    ids = [m.group(1) for m in ENTRY.finditer(text)]
    assert len(ids) == len(set(ids))
    assert {"R1.1", "R2.5", "R3.4", "R4.5", "R5.2", "R6.8", "R7"} <= set(ids)


def test_every_rule_id_of_the_doc_has_a_test_naming_it():
    """Each id of docs/rules.md appears in a test name or docstring (R3.4 or R3_4)."""
    tests = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "tests").rglob("test_*.py")
                      if p.name != "test_rules_doc.py")
    missing = [i for i in entries() if not re.search(rf"\b({re.escape(i)}|{i.replace('.', '_')})\b", tests)]
    assert not missing, missing


def test_every_cited_rule_id_is_defined_in_the_doc():
    """Rule ids cited in the code, the tests and the docs exist in docs/rules.md."""
    defined = set(entries())
    files = [p for d in ("ttrsim", "strategies", "tests", "docs") for p in (ROOT / d).rglob("*")
             if p.suffix in (".py", ".md", ".yaml")] + [ROOT / "README.md"]
    unknown = set()
    for p in files:
        for m in CITED.finditer(p.read_text(encoding="utf-8")):
            rule = f"R{m.group(1)}.{m.group(2)}"
            if rule not in defined:
                unknown.add(f"{p.relative_to(ROOT)}: {rule}")
    assert not unknown, sorted(unknown)


def test_every_choice_names_a_choice_parameter_and_back():
    """A **[choice]** entry names (in code font) a rule parameter marked as a
    choice, and every choice parameter is named in its rule's entry, which
    carries **[choice]**: an experiment can flip every reading the texts leave open."""
    doc = entries()
    choice_params = {p.name: p.rule for p in PARAMS if p.choice}
    for rule, text in doc.items():
        if "**[choice]**" in text:
            named = set(re.findall(r"`(\w+)`", text)) & set(choice_params)
            assert named, f"{rule} is a [choice] but names no choice parameter"
    for name, rule in choice_params.items():
        assert "**[choice]**" in doc[rule] and f"`{name}`" in doc[rule], (name, rule)


def test_no_test_or_document_points_outside_the_repository():
    pattern = re.compile("|".join((r"\.\./" + "shared", "/" + "work/", r"Path\(\"/")))
    bad = [str(p.relative_to(ROOT)) for d in ("ttrsim", "strategies", "tests", "docs", "experiments")
           for p in (ROOT / d).rglob("*") if p.suffix in (".py", ".md", ".yaml", ".toml")
           and pattern.search(p.read_text(encoding="utf-8"))]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert not bad and not pattern.search(readme), bad
