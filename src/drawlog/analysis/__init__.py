"""``drawlog analyze``: how good each decision was, from what the player could know and from the whole truth.

:mod:`.sampler` deals the unseen tiles consistently with a player's knowledge,
:mod:`.rollout` plays a round out fast with a fixed policy, :mod:`.equity`
weighs each legal action over sampled deals, :mod:`.decisions` walks logged
matches and finds every decision, :mod:`.summary` sums them up per player.
"""
