"""``python -m backgammon``: the rules core from the shell, for scripts and cross-checks.

Bad input is a one-line message on stderr and exit status 2, never a traceback: the
commands are meant to be driven by other programs that need a clear answer.
"""

from __future__ import annotations

import argparse
import codecs
import json
import re
import sys
from collections.abc import Iterator, Sequence
from typing import NoReturn, TextIO

from backgammon.dice import verify
from backgammon.errors import BackgammonError, DiceMismatch
from backgammon.gnubg_ids import position_from_id, position_id, result_ids
from backgammon.moves import legal_plays
from backgammon.notation import format_play
from backgammon.position import CHECKERS
from backgammon.tavli.jsonl import plays_jsonl
from backgammon.tavli.rules import TavliRules
from backgammon.variants import Variant, Variants

EXIT_MISMATCH = 1
EXIT_BAD_INPUT = 2

PLAYS_HELP = """\
List every distinct legal play for a position and a roll.

One position (--position-id and --dice): one line per distinct play,
"<play in notation>\\t<position ID of the result>", sorted by position ID. The
result is still seen by the side that moved (it stays the side on roll in the ID), so
it can be compared with other programs' move generators. When the dice cannot be
played, one line: an empty play, a tab, and the unchanged position ID.

Many positions (--jsonl): read JSON lines {"position_id": ..., "dice": [d1, d2]} on
stdin and write one JSON line per input line, in order: {"position_id", "dice",
"results": [sorted position IDs of all distinct results]} (a single result, the
unchanged position, when the dice cannot be played). Blank lines are skipped. A line
that cannot be read or is not a legal position and roll gives {"line": <its number,
from 1>, "error": "<why>"} instead; the other lines are still answered and the exit
status is then 2. The lines are answered as they arrive (what one read of stdin gives
is answered and flushed at once): a program may write a line and wait for its answer.

--variant standard | nackgammon | hypergammon (default standard) checks the
checkers against that variant. The games GNU Backgammon's IDs cannot hold, --variant
portes | plakoto | fevga | gulbara | acey-deucey, read and write boards with --jsonl:
each line {"board": B, "dice": [d1, d2]}, each answer {"results": [B, ...]}, one
board per distinct legal play of the turn (the unchanged board when none). B is
{"mine": [25 counts], "opponent": [25 counts], "pins": [["mine" | "opponent", point],
...]}: slot 0 borne off, slot r own point r; portes and acey-deucey add "bar" and
acey-deucey "waiting" ({"mine": n, "opponent": n}), gul bara "roll" (the mover's roll
number, from 1). A bad line gives {"line", "error"}, as above.
"""

VERIFY_HELP = """\
Check a revealed dice record (GET /api/matches/{id}/dice/ after the match):
{"algorithm", "server_seed", "client_seed", "commitment" (optional), "rolls"}.
Prints "OK" and the number of rolls when every roll follows from the seeds (exit 0),
else the first mismatch (exit 1). A file that is not such a record: exit 2.
"""


class _Parser(argparse.ArgumentParser):
    """argparse, with usage errors in the same form as the commands' own errors."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message}\n")


class BadInput(Exception):
    """Input the command cannot use; the message says why, for the user."""


def _die(text: str) -> int:
    if text not in ("1", "2", "3", "4", "5", "6"):
        raise argparse.ArgumentTypeError(f"a die is 1 to 6, not {text!r}")
    return int(text)


def build_parser() -> argparse.ArgumentParser:
    """The parser for ``python -m backgammon`` and its subcommands."""
    parser = _Parser(
        prog="python -m backgammon",
        description="The backgammon club's rules core from the command line.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    plays = commands.add_parser(
        "plays",
        help="every distinct legal play for a position and a roll",
        description=PLAYS_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    source = plays.add_mutually_exclusive_group(required=True)
    source.add_argument("--position-id", metavar="ID", help="GNU Backgammon position ID")
    source.add_argument(
        "--jsonl", action="store_true", help="read positions and dice as JSON lines on stdin"
    )
    plays.add_argument(
        "--dice", nargs=2, type=_die, metavar=("D1", "D2"), help="the roll, e.g. --dice 6 5"
    )
    plays.add_argument(
        "--variant",
        choices=[member.value.name for member in Variants],
        default="standard",
        help="the game (default standard); the tavli games need --jsonl",
    )
    plays.set_defaults(handler=_plays)

    check = commands.add_parser(
        "verify-dice",
        help="recompute every roll of a revealed dice record",
        description=VERIFY_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    check.add_argument("file", metavar="FILE", help="the record as JSON, or - for stdin")
    check.set_defaults(handler=_verify_dice)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; return the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "plays" and args.position_id is not None and args.dice is None:
        parser.error("plays: --position-id needs --dice D1 D2")
    if args.command == "plays" and args.jsonl and args.dice is not None:
        parser.error("plays: --dice goes with --position-id; with --jsonl each line has dice")
    if args.command == "plays" and args.position_id is not None and _tavli(args) is not None:
        parser.error(f"plays: {args.variant} reads boards, not position IDs: use --jsonl")
    try:
        status: int = args.handler(args, sys.stdin, sys.stdout)
        return status
    except BadInput as exc:
        print(f"{parser.prog}: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT


def _tavli(args: argparse.Namespace) -> TavliRules | None:
    return Variants.by_name(args.variant).rules


def _results(position_text: str, dice: tuple[int, int], variant: Variant) -> list[tuple[str, str]]:
    """(notation, result position ID) of each distinct play, sorted by position ID."""
    position = position_from_id(position_text)
    if variant.checkers != CHECKERS:
        position.validate(variant.checkers)
    plays = legal_plays(position, dice)
    if not plays:
        return [("", position_id(position))]
    rows = ((format_play(play.steps), position_id(play.result)) for play in plays)
    return sorted(rows, key=lambda row: (row[1], row[0]))


def _plays(args: argparse.Namespace, stdin: TextIO, stdout: TextIO) -> int:
    rules = _tavli(args)
    if rules is not None:
        return plays_jsonl(rules, stdin, stdout)
    variant = Variants.by_name(args.variant)
    if args.jsonl:
        return _plays_jsonl(stdin, stdout, variant)
    try:
        rows = _results(args.position_id, tuple(args.dice), variant)
    except BackgammonError as exc:
        raise BadInput(str(exc)) from exc
    stdout.writelines(f"{notation}\t{result}\n" for notation, result in rows)
    return 0


# A request line as json.dumps writes one (and most writers do): read without the JSON
# parser, a third of the per-line cost. Any other line, valid JSON or not, goes to it.
_REQUEST = re.compile(
    r'[ \t]*\{[ \t]*"position_id"[ \t]*:[ \t]*"([A-Za-z0-9+/]{13}[AQgw])"[ \t]*,'
    r'[ \t]*"dice"[ \t]*:[ \t]*\[[ \t]*([1-6])[ \t]*,[ \t]*([1-6])[ \t]*\][ \t]*\}[ \t\r]*'
).fullmatch
_BLOCK = 1 << 16  # bytes read from stdin at a time, at most


def _plays_jsonl(stdin: TextIO, stdout: TextIO, variant: Variant) -> int:
    status = 0
    number = 0
    for lines in _line_blocks(stdin):
        answers = []
        for line in lines:
            number += 1
            if not line.strip():
                continue
            try:
                request = _REQUEST(line)
                if request:
                    position_text, die1, die2 = request.groups()
                    dice = (int(die1), int(die2))
                else:
                    position_text, dice = _read_request(line)
                results = result_ids(position_text, dice, variant.checkers)
            except (BadInput, BackgammonError) as exc:
                answers.append(json.dumps({"line": number, "error": str(exc)}) + "\n")
                status = EXIT_BAD_INPUT
                continue
            # json.dumps's output, written directly: every string here is a position ID
            # (base64), which JSON writes as it is.
            listed = '", "'.join(results)
            answers.append(
                f'{{"position_id": "{position_text}", "dice": [{dice[0]}, {dice[1]}], '
                f'"results": ["{listed}"]}}\n'
            )
        stdout.write("".join(answers))
        stdout.flush()
    return status


def _line_blocks(stdin: TextIO) -> Iterator[list[str]]:
    """The lines of ``stdin`` (without their ends), a block at a time: the whole lines
    that one read returned. A program that feeds many lines gets its answers in large
    writes; one that feeds a line and waits gets its answer as soon as it is found."""
    rest = ""
    for text in _text_blocks(stdin):
        *lines, rest = (rest + text).split("\n")
        if lines:
            yield lines
    if rest:
        yield [rest]


def _text_blocks(stdin: TextIO) -> Iterator[str]:
    """The text of ``stdin`` as it arrives. Bytes that are not UTF-8 become U+FFFD, so
    that their line is answered as unreadable rather than ending the command."""
    buffer = getattr(stdin, "buffer", None)
    if buffer is None:  # a stream of text only, such as io.StringIO
        while text := stdin.read(_BLOCK):
            yield text
        return
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    while data := buffer.read1(_BLOCK):
        yield decoder.decode(data)
    yield decoder.decode(b"", final=True)


def _read_request(line: str) -> tuple[str, tuple[int, int]]:
    try:
        request = json.loads(line)
    except json.JSONDecodeError as exc:
        raise BadInput(f"not JSON: {exc}") from exc
    if not isinstance(request, dict):
        raise BadInput('expected an object {"position_id": ..., "dice": [d1, d2]}')
    position_text = request.get("position_id")
    dice = request.get("dice")
    if not isinstance(position_text, str):
        raise BadInput("position_id must be a string")
    if not (
        isinstance(dice, list)
        and len(dice) == 2
        and all(type(d) is int and 1 <= d <= 6 for d in dice)
    ):
        raise BadInput("dice must be a list of two numbers from 1 to 6")
    return position_text, (dice[0], dice[1])


def _verify_dice(args: argparse.Namespace, stdin: TextIO, stdout: TextIO) -> int:
    try:
        if args.file == "-":
            record = json.load(stdin)
        else:
            with open(args.file, encoding="utf-8") as handle:
                record = json.load(handle)
    except OSError as exc:
        raise BadInput(f"cannot read {args.file}: {exc.strerror}") from exc
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise BadInput(f"{args.file} is not JSON: {exc}") from exc
    try:
        verify(record)
    except DiceMismatch as exc:
        stdout.write(f"MISMATCH: {exc}\n")
        return EXIT_MISMATCH
    except ValueError as exc:
        raise BadInput(f"{args.file}: {exc}") from exc
    stdout.write(f"OK: {len(record['rolls'])} rolls follow from the seeds\n")
    return 0
