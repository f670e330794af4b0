"""``drawlog analyze``: how good each decision was, from what the player could know and from the whole truth.

:mod:`.sampler` deals the unseen tiles consistently with a player's knowledge,
:mod:`.actions` lists a decision's actions, :mod:`.rollout` plays a round out
fast with a fixed policy, :mod:`.equity` weighs each action over sampled deals
and over the true one, :mod:`.decisions` classes the action taken,
:mod:`.walk` replays logged matches (their legal prefix) and finds every
decision, :mod:`.summary` sums them up per player and builds the tables.
:mod:`.fairplay` weighs a player's peeks against honest play; :mod:`.bots`
holds the ``expert`` and ``peeker`` bots ``drawlog simulate`` offers.
"""
