"""The repository stands alone (issue 18 item 9): README and docs link nothing a cloner does
not have: no path outside the repository, no relative link to a missing file, no citation of
the project's private spec or architecture files."""

import re

from helpers import REPO

DOCS = [REPO / "README.md", REPO / "BENCHMARKS.md", *sorted((REPO / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def test_docs_link_only_inside_the_repository():
    bad = []
    for doc in DOCS:
        text = doc.read_text()
        for word in ("../shared", "api-v1.md", "ARCHITECTURE.md"):
            if word in text:
                bad.append(f"{doc.name}: cites {word}")
        for target in LINK.findall(text):
            if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                continue
            path = (doc.parent / target.split("#")[0]).resolve()
            if not str(path).startswith(str(REPO.resolve())) or not path.exists():
                bad.append(f"{doc.name}: link {target} leads nowhere in the repository")
    assert not bad, "\n".join(bad)
