"""The table engine's Celery tasks, for every table (a match's, a chouette's): thin entry
points that call the engine."""

from celery import shared_task

from matches import table_engine


@shared_task(name=table_engine.TIMEOUT_TASK, ignore_result=True)
def table_timeout(table_id: int, turn_no: int) -> bool:
    """Apply the timeout of turn ``turn_no`` if the table is still at it and its deadline
    has passed (a late or repeated task does nothing)."""
    return table_engine.table_timeout(table_id=table_id, turn_no=turn_no)


@shared_task(name="matches.sweep", ignore_result=True)
def sweep() -> int:
    """Apply every timeout that is due whose task was lost, and ask the robots again
    whose request was (run by beat every few seconds)."""
    return table_engine.tables_sweep() + table_engine.robots_ask_again()


@shared_task(name=table_engine.ROBOT_ACT_TASK, ignore_result=True)
def robot_act(table_id: int, turn_no: int, action: dict[str, str]) -> bool:
    """Apply the practice robot's answer (from the engine's worker) if the table is still
    at the turn it was asked for (a late or repeated answer does nothing)."""
    return table_engine.robot_act(table_id=table_id, turn_no=turn_no, action=action)
