"""The embedded default's broker: kombu's filesystem transport, each message written
whole before any worker can see it.

kombu creates a message's file in the queue's folder under its final name, then fills
it; a worker listing the folder in between takes the file, reads it empty, and its
consumer stops on the JSON error (kombu issue #1551, open). Through a club night the
Celery worker crashed so every few minutes, and the clocks that ran out meanwhile waited
for its restart (bench/README.md, "The filesystem broker's torn messages"). Here a message
is written under a name no worker looks for, then renamed to its own (atomic within one
filesystem): a worker finds a whole message or none.

Plain kombu, no Django: the engine worker loads it too (``analysis.engine_worker``).
Selected by ``CELERY_BROKER_TRANSPORT`` (config/settings.py) for a ``filesystem://``
broker; every process that sends tasks writes through it.
"""

import contextlib
import os
import uuid
from time import monotonic
from typing import Any

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.json import dumps


class Channel(filesystem.Channel):
    # kombu's virtual channel names the argument message, its filesystem channel payload.
    def _put(self, queue: str, payload: dict[str, Any], **kwargs: Any) -> None:  # type: ignore[override]
        """Put ``payload`` on ``queue``: written in full under a hidden name, then renamed
        to the name kombu's readers take (their time order, in milliseconds, first)."""
        name = f"{round(monotonic() * 1000)}_{uuid.uuid4()}.{queue}.msg"
        final = os.path.join(self.data_folder_out, name)
        writing = os.path.join(self.data_folder_out, f".{uuid.uuid4()}.writing")
        try:
            with open(writing, "wb") as file:
                file.write(dumps(payload).encode())
            os.replace(writing, final)
        except OSError as error:
            raise ChannelError(f"Cannot add file {final!r} to directory") from error

    def _queue_bind(self, exchange: str, routing_key: str, pattern: str | None, queue: str) -> None:
        """Bind ``queue`` to ``exchange`` in the exchange's table file. kombu creates that
        file empty, then locks and fills it: another process reading it in between (a
        worker sending its first task) stopped on the empty file. Here it is created
        whole, holding no binding yet (or found made by another process), and kombu
        adds the binding under its lock as to any table that exists."""
        table = self.control_folder / f"{exchange}.exchange"
        self.control_folder.mkdir(exist_ok=True)
        if not table.exists():
            writing = self.control_folder / f".{uuid.uuid4()}.writing"
            writing.write_bytes(dumps([]).encode())
            # The name is made only if no one has; where links fail (a filesystem
            # without them) kombu's own path below creates the table as before.
            with contextlib.suppress(OSError):
                os.link(writing, table)
            writing.unlink()
        super()._queue_bind(exchange, routing_key, pattern, queue)


class Transport(filesystem.Transport):
    Channel = Channel
