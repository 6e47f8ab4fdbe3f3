"""Check the books: every transaction balances, and the ledger as a whole sums to zero.

Exits 0 saying so, or non-zero naming every offending transaction. Checks, for each
transaction: at least two legs, legs summing to exactly zero, and for a reversal, legs
that are exactly the original's with the signs turned. Then: all legs sum to zero.
"""

from collections import Counter, defaultdict
from decimal import Decimal
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from club import money, selectors
from club.models import Leg
from web.progress import progress


class Command(BaseCommand):
    help = "Check that every ledger transaction, and the ledger as a whole, balances."

    def handle(self, *args: Any, **options: Any) -> None:
        transactions = selectors.transactions_with_totals()
        total = transactions.count()
        problems: list[str] = []
        reversals: dict[int, int] = {}
        for posted in progress(
            transactions.iterator(chunk_size=2000),
            total=total,
            label="transactions",
            out=self.stdout,
        ):
            if posted.leg_count < 2:
                problems.append(
                    f"transaction {posted.pk} has {posted.leg_count} leg(s); it needs two or more"
                )
            # SQLite sums decimals as floats (37.80 + 16.20 + 6.00 - 60.00 is not 0 there):
            # the legs are whole cents, so their sum is read to the cent.
            if posted.total is not None and posted.total.quantize(money.CENT) != 0:
                problems.append(
                    f"transaction {posted.pk} does not balance: its legs sum to {posted.total}"
                )
            if posted.reverses_id is not None:
                reversals[posted.pk] = posted.reverses_id
        problems += self._reversal_problems(reversals)
        grand_total = selectors.ledger_total()
        if grand_total != 0:
            problems.append(f"the ledger does not balance: all legs sum to {grand_total}")
        if problems:
            for problem in problems:
                self.stderr.write(problem)
            raise CommandError(
                f"The ledger does not balance: {len(problems)} problem(s) in {total} transactions."
            )
        self.stdout.write(f"The ledger balances: {total} transactions, all legs sum to 0.00.")

    def _reversal_problems(self, reversals: dict[int, int]) -> list[str]:
        """A reversal's legs are the original's legs with the signs turned."""
        if not reversals:
            return []
        wanted = set(reversals) | set(reversals.values())
        legs: dict[int, Counter[tuple[int, Decimal]]] = defaultdict(Counter)
        for transaction_id, account_id, amount in Leg.objects.filter(
            transaction_id__in=wanted
        ).values_list("transaction_id", "account_id", "amount"):
            legs[transaction_id][(account_id, amount)] += 1
        problems = []
        for reversal, original in sorted(reversals.items()):
            turned = Counter({(a, -amount): n for (a, amount), n in legs[original].items()})
            if legs[reversal] != turned:
                problems.append(
                    f"transaction {reversal} does not exactly reverse transaction {original}"
                )
        return problems
