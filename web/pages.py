"""What the pages share beyond their templates."""

from django.http import HttpRequest

# static/club/live_region.js asks for a page's live region alone with ?live=region.
LIVE_REGION_ASKED = "region"


def live_template(request: HttpRequest, *, page: str, region: str) -> str:
    """The template a page that follows the live channel answers with: ``region``, its
    live region alone (the same context, no base template: no header, menu or footer
    to draw), when static/club/live_region.js fetches it again on a new version;
    ``page``, which includes ``region``, otherwise."""
    return region if request.GET.get("live") == LIVE_REGION_ASKED else page


# A page for the room's TV (docs/pages.md, "The big screen"): ?screen=big.
SCREEN_ASKED = "screen"
BIG_SCREEN = "big"


def big_screen(request: HttpRequest) -> bool:
    """Whether ``request`` asks for the page's big-screen layout (no site header or footer,
    the board or the bracket filling the screen, large type). Its live region asks for the
    same: static/club/live_region.js fetches the page's own address, query and all."""
    return request.GET.get(SCREEN_ASKED) == BIG_SCREEN
