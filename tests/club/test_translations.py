"""The catalogues: bg, el and ro are complete, compiled, consistent, and used by the pages."""

import ast
import gettext
import io
import re
import tokenize
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from django.conf import settings
from django.utils import translation
from django.utils.translation import ngettext

LANGS = ["bg", "el", "ro"]
LOCALE = Path(settings.LOCALE_PATHS[0])
PLURAL_FORMS = {
    "bg": "nplurals=2; plural=(n != 1);",
    "el": "nplurals=2; plural=(n != 1);",
    "ro": "nplurals=3; plural=(n==1?0:(((n%100>19)||((n%100==0)&&(n!=0)))?2:1));",
}
# The navigation's "Players" as the catalogues say it (checked against the .po below).
PLAYERS = {"bg": "Играчи", "el": "Παίκτες", "ro": "Jucători"}


# A small .po parser (no dependency) -----------------------------------------------------


@dataclass
class Entry:
    msgid: str = ""
    msgid_plural: str | None = None
    msgctxt: str | None = None
    msgstr: dict[int, str] = field(default_factory=dict)
    flags: set[str] = field(default_factory=set)
    line: int = 0


_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}


def _unquote(text: str) -> str:
    text = text.strip()
    assert text.startswith('"') and text.endswith('"'), text
    return re.sub(r"\\(.)", lambda m: _ESCAPES[m.group(1)], text[1:-1])


def parse_po(path: Path) -> list[Entry]:
    """Every entry of a .po file, the header (msgid "") included; obsolete ones left out."""
    entries: list[Entry] = []
    entry, target = Entry(), None

    def finish():
        nonlocal entry, target
        if entry.msgstr or entry.msgid:
            entries.append(entry)
        entry, target = Entry(), None

    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = raw.strip()
        if not line:
            finish()
        elif line.startswith("#~"):
            continue
        elif line.startswith("#,"):
            if entry.msgstr:
                finish()
            entry.flags |= {flag.strip() for flag in line[2:].split(",")}
        elif line.startswith("#"):
            if entry.msgstr:
                finish()
        elif line.startswith("msgctxt "):
            if entry.msgstr:
                finish()
            entry.msgctxt, target = _unquote(line[8:]), ("msgctxt", None)
        elif line.startswith("msgid_plural "):
            entry.msgid_plural, target = _unquote(line[13:]), ("msgid_plural", None)
        elif line.startswith("msgid "):
            if entry.msgstr:
                finish()
            entry.msgid, entry.line, target = _unquote(line[6:]), number, ("msgid", None)
        elif line.startswith("msgstr["):
            index = int(line[7 : line.index("]")])
            entry.msgstr[index] = _unquote(line[line.index("]") + 1 :])
            target = ("msgstr", index)
        elif line.startswith("msgstr "):
            entry.msgstr[0], target = _unquote(line[7:]), ("msgstr", 0)
        elif line.startswith('"'):
            name, index = target
            if name == "msgstr":
                entry.msgstr[index] += _unquote(line)
            else:
                setattr(entry, name, getattr(entry, name) + _unquote(line))
        else:
            raise AssertionError(f"{path}:{number}: cannot read {raw!r}")
    finish()
    return entries


def po_path(lang: str) -> Path:
    return LOCALE / lang / "LC_MESSAGES" / "django.po"


def mo_path(lang: str) -> Path:
    return LOCALE / lang / "LC_MESSAGES" / "django.mo"


def messages(lang: str) -> list[Entry]:
    return [entry for entry in parse_po(po_path(lang)) if entry.msgid]


def header(lang: str) -> dict[str, str]:
    (head,) = [entry for entry in parse_po(po_path(lang)) if entry.msgid == ""]
    pairs = (line.split(":", 1) for line in head.msgstr[0].splitlines() if ":" in line)
    return {key.strip(): value.strip() for key, value in pairs}


PLACEHOLDER = re.compile(r"%(?:\([^)]*\))?[-#0 +]*(?:\d+|\*)?(?:\.\d+)?[diouxXeEfFgGcrsa%]")


def placeholders(text: str) -> Counter:
    return Counter(found for found in PLACEHOLDER.findall(text) if found != "%%")


# The catalogues -----------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
def test_each_language_has_a_catalogue_and_a_compiled_one(lang):
    assert lang in dict(settings.LANGUAGES)
    assert po_path(lang).is_file()
    assert mo_path(lang).is_file() and mo_path(lang).stat().st_size > 0
    assert len(messages(lang)) > 100


@pytest.mark.parametrize("lang", LANGS)
def test_the_header_names_the_language_and_its_plural_forms(lang):
    fields = header(lang)
    assert fields["Language"] == lang
    assert fields["Content-Type"] == "text/plain; charset=UTF-8"
    assert fields["Plural-Forms"] == PLURAL_FORMS[lang]


@pytest.mark.parametrize("lang", LANGS)
def test_every_message_is_translated_and_none_is_fuzzy(lang):
    nplurals = int(re.search(r"nplurals=(\d+)", PLURAL_FORMS[lang]).group(1))
    problems = []
    for entry in messages(lang):
        where = f"{po_path(lang).name}:{entry.line} {entry.msgid!r}"
        if "fuzzy" in entry.flags:
            problems.append(f"{where}: fuzzy")
        wanted = range(nplurals) if entry.msgid_plural is not None else range(1)
        if sorted(entry.msgstr) != list(wanted):
            problems.append(f"{where}: forms {sorted(entry.msgstr)}, want {list(wanted)}")
        problems += [f"{where}: empty form {i}" for i, s in entry.msgstr.items() if not s.strip()]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("lang", LANGS)
def test_every_translation_keeps_the_placeholders_of_its_msgid(lang):
    problems = []
    for entry in messages(lang):
        for index, text in entry.msgstr.items():
            source = entry.msgid if index == 0 else entry.msgid_plural
            if placeholders(text) != placeholders(source):
                problems.append(
                    f"{entry.msgid!r} [{index}]: {sorted(placeholders(text).elements())} "
                    f"!= {sorted(placeholders(source).elements())}"
                )
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("lang", LANGS)
def test_the_compiled_catalogue_is_the_po_as_it_stands(lang):
    """Whoever edits a .po compiles it too: the .mo holds the same translations."""
    with mo_path(lang).open("rb") as handle:
        compiled = gettext.GNUTranslations(handle)
    assert compiled.info().get("plural-forms") == PLURAL_FORMS[lang]
    stale = []
    for entry in messages(lang):
        if entry.msgid_plural is None and entry.msgctxt is not None:
            got = {0: compiled.pgettext(entry.msgctxt, entry.msgid)}
        elif entry.msgid_plural is None:
            got = {0: compiled.gettext(entry.msgid)}
        else:
            # One n per form, as the language's plural formula picks them.
            samples = {"bg": [1, 2], "el": [1, 2], "ro": [1, 2, 20]}[lang]
            got = {
                i: compiled.ngettext(entry.msgid, entry.msgid_plural, n)
                for i, n in enumerate(samples)
            }
        if got != entry.msgstr:
            stale.append(entry.msgid)
    assert not stale, f"recompile {mo_path(lang)}: {stale}"


def test_the_catalogue_of_players_says_what_the_page_test_expects():
    for lang in LANGS:
        (entry,) = [e for e in messages(lang) if e.msgid == "Players" and e.msgctxt is None]
        assert entry.msgstr[0] == PLAYERS[lang]


def test_plural_forms_pick_the_right_form_at_run_time():
    cases = {
        ("bg", 1): "1 плащане.",
        ("bg", 5): "5 плащания.",
        ("el", 1): "1 πληρωμή.",
        ("el", 5): "5 πληρωμές.",
        ("ro", 1): "1 plată.",
        ("ro", 5): "5 plăți.",
        ("ro", 20): "20 de plăți.",
        ("ro", 101): "101 plăți.",
    }
    for (lang, count), wanted in cases.items():
        with translation.override(lang):
            said = ngettext("%(counter)s payment.", "%(counter)s payments.", count)
        assert said % {"counter": count} == wanted


# The pages ----------------------------------------------------------------------------


def nav(html: str) -> dict[str, str]:
    """The main navigation's links: {href: text}."""
    block = re.search(r'<nav aria-label="[^"]*">(.*?)</nav>', html, re.S).group(1)
    return {
        href: text.strip() for href, text in re.findall(r'<a href="([^"]+)">([^<]*)</a>', block)
    }


@pytest.mark.django_db
@pytest.mark.parametrize("lang", LANGS)
def test_the_home_page_speaks_the_language_the_browser_asks_for(client, lang):
    response = client.get("/", headers={"accept-language": f"{lang},en;q=0.5"})
    assert response.status_code == 200
    html = response.content.decode()
    assert f'<html lang="{lang}">' in html
    assert response.headers["Content-Language"] == lang
    assert nav(html)["/players/"] == PLAYERS[lang]


@pytest.mark.django_db
@pytest.mark.parametrize("lang", LANGS)
def test_the_language_cookie_chooses_the_language(client, lang):
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = lang
    response = client.get("/", headers={"accept-language": "en"})
    html = response.content.decode()
    assert f'<html lang="{lang}">' in html
    assert nav(html)["/players/"] == PLAYERS[lang]
    with translation.override(lang):
        assert nav(html)["/tournaments/"] == translation.gettext("Tournaments") != "Tournaments"


@pytest.mark.django_db
def test_english_stays_english(client):
    html = client.get("/", headers={"accept-language": "en"}).content.decode()
    assert '<html lang="en">' in html
    assert nav(html)["/players/"] == "Players"


@pytest.mark.django_db
def test_the_menu_reaches_every_public_list_the_club_keeps(client):
    """The results were reachable only by typing /results/ (issue 22)."""
    links = nav(client.get("/").content.decode())
    assert {"/play/", "/chouettes/", "/tournaments/", "/players/", "/results/", "/ledger/"} <= set(
        links
    )
    assert links["/results/"] == "Results"


@pytest.mark.django_db
@pytest.mark.parametrize("lang", ["en", *LANGS])
def test_the_language_menu_names_each_language_in_its_own_words(client, lang):
    """A reader who cannot read the page's language still finds their own in the menu."""
    html = client.get("/", headers={"accept-language": lang}).content.decode()
    options = dict(re.findall(r'<option value="(\w+)" lang="\w+"[^>]*>([^<]+)</option>', html))
    assert options == {"en": "English", "bg": "Български", "el": "Ελληνικά", "ro": "Română"}


# The source against the catalogues ----------------------------------------------------
# What `makemessages` would extract, read without GNU gettext (a fresh machine has none):
# the Python files with ast, the templates through Django's own templatize, with
# xgettext's keywords as Django passes them. A string marked in the source but missing
# from a catalogue is shown in English to a Bulgarian, Greek or Romanian reader.

PROJECT = Path(settings.BASE_DIR)
NOT_EXTRACTED = {".venv", "var", "tests", "bench", "locale", "node_modules", ".git"}
# keyword: (index of the context or None, index of the msgid, index of the plural or None)
KEYWORDS = {
    "_": (None, 0, None),
    "gettext": (None, 0, None),
    "gettext_lazy": (None, 0, None),
    "gettext_noop": (None, 0, None),
    "ngettext": (None, 0, 1),
    "ngettext_lazy": (None, 0, 1),
    "pgettext": (0, 1, None),
    "pgettext_lazy": (0, 1, None),
    "npgettext": (0, 1, 2),
    "npgettext_lazy": (0, 1, 2),
}


def source_files(suffix: str) -> list[Path]:
    return sorted(
        path
        for path in PROJECT.rglob(f"*{suffix}")
        if not NOT_EXTRACTED & set(path.relative_to(PROJECT).parts)
    )


def marked_strings(tree: ast.AST) -> set[tuple[str | None, str, str | None]]:
    """(context, msgid, plural) of every call with string literals that xgettext reads."""
    found = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
        if name not in KEYWORDS:
            continue
        literals = [
            arg.value if isinstance(arg, ast.Constant) and isinstance(arg.value, str) else None
            for arg in node.args
        ]
        context, msgid, plural = (
            None if index is None or index >= len(literals) else literals[index]
            for index in KEYWORDS[name]
        )
        if msgid and (KEYWORDS[name][0] is None or context is not None):
            found.add((context, msgid, plural))
    return found


def template_calls(text: str) -> ast.AST:
    """The gettext calls templatize leaves in a template's text, as one parsed module."""
    from django.utils.translation.template import templatize

    calls = []
    tokens = list(tokenize.generate_tokens(io.StringIO(templatize(text)).readline))
    for index, token in enumerate(tokens):
        if token.type != tokenize.NAME or token.string not in KEYWORDS:
            continue
        depth = 0
        for end in tokens[index + 1 :]:
            depth += {"(": 1, ")": -1}.get(end.string, 0) if end.type == tokenize.OP else 0
            if depth == 0:
                break
        line = token.line if token.start[0] == end.end[0] else None
        if line is not None:
            calls.append(line[token.start[1] : end.end[1]])
    return ast.parse("\n".join(calls))


def strings_in_source() -> dict[tuple[str | None, str, str | None], str]:
    """Every marked string, with the first file that marks it."""
    where: dict[tuple[str | None, str, str | None], str] = {}
    for path in source_files(".py"):
        for key in marked_strings(ast.parse(path.read_text(encoding="utf-8"))):
            where.setdefault(key, str(path.relative_to(PROJECT)))
    for suffix in (".html", ".txt"):
        for path in source_files(suffix):
            if "templates" not in path.parts:
                continue
            for key in marked_strings(template_calls(path.read_text(encoding="utf-8"))):
                where.setdefault(key, str(path.relative_to(PROJECT)))
    return where


def test_the_source_scan_finds_what_the_pages_mark():
    """The scan itself: strings known to be marked in a template and in Python are found."""
    found = strings_in_source()
    assert (None, "Players", None) in found
    assert any(key[2] is not None for key in found), "no plural found"
    assert len(found) > 500


@pytest.mark.parametrize("lang", LANGS)
def test_every_string_marked_in_the_source_is_in_the_catalogue(lang):
    catalogue = {(e.msgctxt, e.msgid, e.msgid_plural) for e in messages(lang)}
    missing = [
        f"{where}: {msgid!r}" + (f" (context {context!r})" if context else "")
        for (context, msgid, plural), where in sorted(strings_in_source().items(), key=str)
        if (context, msgid, plural) not in catalogue
    ]
    assert not missing, f"extract and translate ({len(missing)}):\n" + "\n".join(missing)
