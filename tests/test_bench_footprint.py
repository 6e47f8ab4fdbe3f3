"""``bench/footprint.py``'s sum over a process tree (the benchmark itself runs outside CI:
bench/README.md, "Footprint")."""

import subprocess

from bench import footprint
from tests.waiting import wait_until


def test_a_process_trees_memory_counts_the_process_and_its_descendants():
    shell = subprocess.Popen(["sh", "-c", "sleep 60 & sleep 60"])
    try:

        def started() -> bool:
            """Both children forked and each one's sleep exec'd (a forked child is "sh" at
            first)."""
            names = [what.split()[0] for what, _rss, _pss in footprint.tree_memory(shell.pid).each]
            return names == ["sh", "sleep", "sleep"]

        assert wait_until(started)
        memory = footprint.tree_memory(shell.pid)
        assert memory.processes == 3, "the shell and its two sleeps"
        assert memory.rss_mb >= memory.pss_mb > 0
        assert [what.split()[0] for what, _rss, _pss in memory.each] == ["sh", "sleep", "sleep"]
    finally:
        for pid in reversed(footprint.tree(shell.pid)):
            subprocess.run(["kill", str(pid)], check=False)
        shell.wait()
