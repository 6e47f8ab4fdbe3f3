"""The analysis' pages: the review of a match, of an imported match and of a chouette's
games, decision by decision; the upload of a match played elsewhere; an analysis'
progress region, fetched again when its live topic moves (static/analysis/progress.js).

Who may see them: any member, as any member may read every analysis through the API and
watch every match (docs/analysis.md, "The review pages"); a visitor is sent to log in."""

from django import forms
from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.core.files.uploadedfile import UploadedFile
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from analysis import selectors, services
from analysis.models import ImportedMatch, MatchAnalysis
from club.auth import member
from matches import selectors as matches_selectors
from matches.models import Table
from web.errors import ServiceError


def _shown_steps(games: list[selectors.ReviewGame]) -> list[dict[str, object]]:
    """The games as the template draws them (each board's SVG escapes every name)."""
    return [
        {
            "number": game["number"],
            "steps": [
                {"decision": step.decision, "board": mark_safe(step.board), "dice": step.dice}
                for step in game["steps"]
            ],
        }
        for game in games
    ]


def _review(
    request: HttpRequest,
    *,
    names: list[str],
    analyses: list[MatchAnalysis],
    figures: list[selectors.FiguresBody],
    games: list[selectors.ReviewGame],
    back: tuple[str, str],
    none: str = "",
) -> HttpResponse:
    """The review page, whatever was analysed: ``names`` its players (or its title),
    ``analyses`` the analyses shown (their
    progress while not done), ``back`` the address and words of the link back, ``none``
    what to say when there is no analysis."""
    pending = [a for a in analyses if a.status != MatchAnalysis.Status.DONE]
    return render(
        request,
        "analysis/review.html",
        {
            "names": names,
            "none": "" if analyses else none,
            "progress": [selectors.progress_shown(a, request.user) for a in pending],
            "figures": figures,
            "games": _shown_steps(games),
            "back_url": back[0],
            "back_words": back[1],
        },
    )


@login_required
def match_review(request: HttpRequest, pk: int) -> HttpResponse:
    """A match's analysis to step through: each game, each decision with the board its
    decider saw, the dice, the play made and the best, the loss, blunders highlighted
    (the keyboard steps with the arrow keys: static/analysis/review.js)."""
    match = get_object_or_404(matches_selectors.match_queryset(), pk=pk)
    analysis = selectors.analysis_of_match(match)
    figures: list[selectors.FiguresBody] = []
    games: list[selectors.ReviewGame] = []
    if analysis is not None and analysis.status == MatchAnalysis.Status.DONE:
        detail = selectors.analysis_detail(analysis)
        figures, games = detail["players"], selectors.match_review(match, detail)
    return _review(
        request,
        names=matches_selectors.players(match),
        analyses=[] if analysis is None else [analysis],
        figures=figures,
        games=games,
        back=(reverse("play-match", args=[match.pk]), _("Back to the match")),
        none=_("This match has not been analysed."),
    )


@login_required
def imported_review(request: HttpRequest, pk: int) -> HttpResponse:
    """An imported match's analysis to step through, as a match's."""
    imported = get_object_or_404(
        ImportedMatch.objects.select_related("player_1__user", "player_2__user"), pk=pk
    )
    analysis = selectors.analysis_for_import(import_id=imported.pk)
    figures: list[selectors.FiguresBody] = []
    games: list[selectors.ReviewGame] = []
    if analysis.status == MatchAnalysis.Status.DONE:
        detail = selectors.analysis_detail(analysis)
        figures, games = detail["players"], selectors.imported_review(imported, detail)
    return _review(
        request,
        names=[imported.name_1, imported.name_2],
        analyses=[analysis],
        figures=figures,
        games=games,
        back=(reverse("match-import"), _("Upload another match")),
    )


@login_required
def chouette_review(request: HttpRequest, pk: int) -> HttpResponse:
    """An online chouette's analysed games to step through: every decision, the box's,
    the team's plays and each member's own cube (whose cube it is shown). A chouette not
    played online is a 404; one whose games are not analysed yet says so."""
    table = Table.objects.filter(chouette__pk=pk).first()
    if table is None:
        raise Http404(_("There is no chouette %(id)s played online.") % {"id": pk})
    analyses = list(
        MatchAnalysis.objects.filter(table=table)
        .prefetch_related("players")
        .order_by("game_number")
    )
    done = [a for a in analyses if a.status == MatchAnalysis.Status.DONE]
    figures = selectors.chouette_analysis_detail(done)["players"] if done else []
    games = [selectors.chouette_review(a, selectors.analysis_detail(a)) for a in done]
    return _review(
        request,
        names=[_("Chouette #%(id)s") % {"id": pk}],
        analyses=analyses,
        figures=figures,
        games=games,
        back=(reverse("chouette", args=[pk]), _("Back to the chouette")),
        none=_("No game of this chouette is over yet: each is analysed once it is."),
    )


@never_cache
@login_required
def analysis_progress(request: HttpRequest, pk: int) -> HttpResponse:
    """An analysis' progress region alone, which the page fetches again when the
    analysis' live topic moves."""
    analysis = get_object_or_404(MatchAnalysis, pk=pk)
    shown = selectors.progress_shown(analysis, request.user)
    return render(request, "analysis/_progress.html", {"shown": shown})


class MatchImportForm(forms.Form):
    """A match played elsewhere, as a ``.mat`` file, and who played it."""

    file = forms.FileField(
        label=gettext_lazy("The match file (.mat)"),
        help_text=gettext_lazy(
            "Exported from GNU Backgammon or eXtreme Gammon (File, Export, .mat)."
        ),
    )
    player_1 = forms.CharField(
        label=gettext_lazy("The first player in the file is the member"),
        required=False,
        max_length=150,
        help_text=gettext_lazy(
            "A username. Leave it empty to find the member by the name in the file; a "
            "name that is no member's is kept as a guest."
        ),
    )
    player_2 = forms.CharField(
        label=gettext_lazy("The second player in the file is the member"),
        required=False,
        max_length=150,
    )

    def clean_file(self) -> str:
        """The file's text, within the size the club takes."""
        upload: UploadedFile[bytes] = self.cleaned_data["file"]
        limit = settings.ANALYSIS_IMPORT_MAX_BYTES
        if upload.size is not None and upload.size > limit:
            raise forms.ValidationError(
                _("A .mat file is at most %(limit)d bytes.") % {"limit": limit}
            )
        return services.mat_text(upload.read())


@login_required
@require_http_methods(["GET", "POST"])
def match_import(request: HttpRequest) -> HttpResponseBase:
    """Upload a match played elsewhere to have it analysed (the API's
    ``POST /api/matches/import/``, through the same service); then its review, which
    shows the analysis' progress until it is done."""
    form = MatchImportForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        try:
            imported = services.imported_match_create(
                user=member(request.user),
                text=form.cleaned_data["file"],
                player_1=form.cleaned_data["player_1"] or None,
                player_2=form.cleaned_data["player_2"] or None,
            )
        except ServiceError as error:
            form.add_error(None, str(error.message))
        else:
            return redirect("imported-review", pk=imported.pk)
    return render(request, "analysis/import.html", {"form": form})
