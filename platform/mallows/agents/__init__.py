"""The bot side: everything between the runner and a bot's code.

Owns: the protocol handle the runner drives (``protocol``: ``BotHandle``, ``BotFailure``
with its ``kind``, ``Limits``), the one protocol-1/2 client every bot but a person is driven
by (``client``: ``BotClient``) over a channel (``channel``: ``Channel``, send a line and read
one before a deadline; the seam a remote bot will use), a bot object in this process as a
channel (``inprocess``: ``InProcessBot``), which handle a resolved bot gets (``runtimes``:
``RUNTIMES``), protocol 2's negotiation and deliveries
(``history``: the start info, each seat's events delta or full, the observation), finding a bot by name (``registry``: the ``Resolver`` every command and run passes explicitly;
``roster``: a run's pinned shown names, the one value jobs carry), running a
bot in its own process (``process``: the pipe channel and ``SubprocessBot``; ``spawn``: starting its process and
ending it for sure; ``failures``: why it failed, in words its author can act on;
``isolation``: whom it runs as and with what limits, the platform's own hardening, the bot's
environment; ``sandbox``: the bubblewrap sandbox every untrusted bot process runs in; ``pool``:
bot processes reused across the matches of a batch; ``host``: the process that hosts a Python
bot; ``wire``: the JSON-lines codec both ends share), the random policy (``policy``), the
parameter helper bots may use (``kit``), and bot code as data: snapshots, digests, submitted
versions and short names (``submissions``).

May import: ``mallows.errors``, ``mallows`` (the protocol version), ``mallows.seeding`` and
``mallows.games``. Never ``tournaments``, ``results`` or ``cli``; never Ray or SQLite.

What a bot may import from the platform is ``mallows.agents.policy``, ``mallows.agents.kit``,
``mallows.agents.protocol`` and its game's bot kit (``mallows.games.arschmallows.botkit``);
each declares its public names in ``__all__``.
"""
