"""The API docs page: Swagger UI under the Content-Security-Policy.

drf-spectacular's split view serves Swagger UI's start-up script from the page's own
address (``?script``), a same-origin script the policy runs; its page's styles are in
a static file (templates/web/api_docs.html). One relaxation is left, on this page only:
Swagger UI's stylesheet draws its icons (an operation's arrows, the copy button, the
select boxes) as ``data:`` SVG images, which the club's pages need nowhere else.
"""

from csp.decorators import csp_update
from drf_spectacular.views import SpectacularSwaggerSplitView

api_docs = csp_update({"img-src": ["data:"]})(
    SpectacularSwaggerSplitView.as_view(url_name="api-schema", template_name="web/api_docs.html")
)
