"""Fill in an admin page's form as a browser would: every field with the value the page
shows (management forms and inlines included), then the test's changes on top."""

from html.parser import HTMLParser


class _FormFields(HTMLParser):
    def __init__(self, form_id: str) -> None:
        super().__init__()
        self.form_id = form_id
        self.inside = False
        self.fields: dict[str, str] = {}
        self.select: str | None = None
        self.textarea: str | None = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form" and attrs.get("id") == self.form_id:
            self.inside = True
        if not self.inside:
            return
        name = attrs.get("name")
        if tag == "input" and name and "disabled" not in attrs:
            kind = attrs.get("type", "text")
            if kind in ("checkbox", "radio"):
                if "checked" in attrs:
                    self.fields[name] = attrs.get("value", "on")
            elif kind not in ("submit", "button", "file"):
                self.fields[name] = attrs.get("value") or ""
        elif tag == "select" and name and "disabled" not in attrs:
            self.select = name
            self.fields.setdefault(name, "")
        elif tag == "option" and self.select and "selected" in attrs:
            self.fields[self.select] = attrs.get("value") or ""
        elif tag == "textarea" and name and "disabled" not in attrs:
            self.textarea = name
            self.fields[name] = ""

    def handle_endtag(self, tag):
        if tag == "form" and self.inside:
            self.inside = False
        elif tag == "select":
            self.select = None
        elif tag == "textarea":
            self.textarea = None

    def handle_data(self, data):
        if self.textarea:
            self.fields[self.textarea] += (
                data.lstrip("\n") if not self.fields[self.textarea] else data
            )


def form_fields(html: str, form_id: str) -> dict[str, str]:
    """The fields a browser would send from the form ``form_id`` of ``html``."""
    parser = _FormFields(form_id)
    parser.feed(html)
    return parser.fields


def submit(client, url: str, form_id: str, changes: dict[str, str]):
    """Open ``url``, fill in its form with ``changes`` and post it; the response."""
    page = client.get(url)
    assert page.status_code == 200, url
    fields = form_fields(page.content.decode(), form_id)
    return client.post(url, {**fields, **changes})


def payout_fields(table: dict, name: str = "payout_table") -> dict[str, str]:
    """The payout table's rows as a director fills them in on the tournament's page
    (``{"unit", "places": {event: {place: share}}}``), every row the page shows past
    them left blank."""
    rows = [
        (event, place, share)
        for event, places in table["places"].items()
        for place, share in places.items()
    ]
    fields = {f"{name}-unit": table["unit"], f"{name}-rows": str(len(rows) + 3)}
    for index in range(len(rows) + 3):
        event, place, share = rows[index] if index < len(rows) else ("main", "", "")
        fields |= {
            f"{name}-{index}-event": event,
            f"{name}-{index}-place": place,
            f"{name}-{index}-share": share,
        }
    return fields
