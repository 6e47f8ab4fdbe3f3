"""The practice robot's engine worker, in the test's process (tests/conftest.py's
``worker``): the robot's requests kept as the table engine sends them, each decided by
the engine's side and applied as the Django worker applies the answer."""

from analysis.robot_engine import decide
from matches import table_engine


class Worker:
    """The engine's worker, in the test: the requests sent after commit are kept, and
    ``answer`` decides each and applies it as ``matches.robot_act`` does."""

    def __init__(self, capture, decides=decide) -> None:
        self.asked: list[dict] = []
        self.capture = capture
        self.decides = decides

    def run(self, call, **kwargs):
        """``call(**kwargs)``, what it sends after commit sent."""
        with self.capture(execute=True):
            return call(**kwargs)

    def answer(self, *, limit: int = 1000) -> int:
        """Answer every request (and those the answers lead to); how many applied."""
        applied = 0
        for _ in range(limit):
            if not self.asked:
                return applied
            request = self.asked.pop(0)
            action = self.decides(request)
            applied += self.run(
                table_engine.robot_act,
                table_id=request["table"],
                turn_no=request["turn_no"],
                action=action,
            )
        raise AssertionError("the robot never stopped")
