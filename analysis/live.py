"""The analysis app's topic on the live channel (``web.live``): ``analysis:<id>``, an
analysis' ``version``, moved with its status and progress (``services``), no state: the
pages that show an analysis' progress fetch their region again (static/analysis/progress.js).
Any member may watch any analysis, as any member may read it (docs/analysis.md)."""

from collections.abc import Collection

from analysis.models import MatchAnalysis
from web import live

# An analysis' id in a topic: the digits of a BigAutoField, no more.
MAX_ID_DIGITS = 18


def analysis_versions(keys: Collection[str]) -> dict[str, int]:
    """The version of each analysis named by ``keys`` that exists, in one query."""
    ids = {
        int(key) for key in keys if key.isascii() and key.isdigit() and len(key) <= MAX_ID_DIGITS
    }
    return {str(pk): version for pk, version in live.versions_by_id(MatchAnalysis, ids).items()}


def analysis_topic(analysis: MatchAnalysis) -> str:
    """The topic the pages showing ``analysis`` follow."""
    return f"analysis:{analysis.pk}"


def register() -> None:
    live.topic_register(name="analysis", versions=analysis_versions)
