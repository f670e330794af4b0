"""The rule catalog: every violation code with its name, severity and explanation.

Codes are stable; users filter on them (``--select M2``). ``drawlog rule CODE``
prints an entry. Codes group by their first letter: ``F`` file and format,
``S`` setup (players, deal), ``M`` moves, ``R`` results, ``W`` warnings.
"""

from __future__ import annotations

from dataclasses import dataclass

ERROR = "error"
WARNING = "warning"


@dataclass(frozen=True)
class Rule:
    """One violation code: what it checks, why, and a bad and a good log snippet."""

    code: str
    name: str
    severity: str
    summary: str
    why: str
    bad: str
    good: str
    #: A code no longer reported (kept so that filters naming it still work).
    retired: bool = False


_START = '{"type":"match_start","match":"m1","players":["ann","bob"]}'

RULES: tuple[Rule, ...] = (
    Rule("F001", "invalid-json", ERROR,
         "A line is not valid JSON (or not UTF-8, or longer than 1 MiB, 1,048,576 bytes).",
         "Every non-blank line of a log is one JSON object; a broken line cannot be read, so its event is lost.",
         '{"type":"pass","match":"m1","player":"bob"',
         '{"type":"pass","match":"m1","player":"bob"}'),
    Rule("F002", "schema-mismatch", ERROR,
         "An event does not fit the log format: a line that is not a JSON object, an unknown `type`, "
         "a missing or mistyped field, a tile that is not two integers 0–6, an unknown `variant`, an "
         "unknown or mistyped key in `rules` (or `rules.reserve` in an All Fives match).",
         "The replay needs every field of an event with its type; a tile like [3,7] is not in a double-six set. "
         "A `match_end`'s `forfeit` (format v1.2) needs its `player` and a `reason` of illegal-move, timeout, "
         "crash, protocol or withdrawn, and no other key.",
         '{"type":"play","match":"m1","player":"ann","tile":[3,7]}',
         '{"type":"play","match":"m1","player":"ann","tile":[3,6]}'),
    Rule("F003", "seq-out-of-order", ERROR,
         "`seq` numbers of a match do not run 1, 2, 3 … (a gap, a repeat or a step back).",
         "A gap means an event was lost; a repeat or a step back means events were duplicated or reordered.",
         '{"type":"draw","match":"m1","seq":7,"player":"ann","tile":[1,2]}\n'
         '{"type":"play","match":"m1","seq":9,"player":"ann","tile":[1,2]}',
         '{"type":"draw","match":"m1","seq":7,"player":"ann","tile":[1,2]}\n'
         '{"type":"play","match":"m1","seq":8,"player":"ann","tile":[1,2]}'),
    Rule("F004", "outside-match-or-round", ERROR,
         "An event of a match that has not started (or has ended), or a move or `round_end` outside a round.",
         "Moves only make sense within a deal of a running match; the replay has no state to check them against.",
         '{"type":"play","match":"m9","player":"ann","tile":[1,2]}   (no match_start for m9)',
         _START + '\n{"type":"round_start","match":"m1", …}\n{"type":"play","match":"m1", …}'),
    Rule("F005", "match-restarted", ERROR,
         "A match id is started a second time (in the same or another file).",
         "Match ids must be unique across a tournament, or results would be counted twice.",
         _START + "\n…\n" + _START,
         _START + '\n…\n{"type":"match_start","match":"m2","players":["ann","bob"]}'),
    Rule("F006", "match-unfinished", ERROR,
         "The input ended inside a match (no `match_end`); reported on the match's last line.",
         "A log cut short cannot show who won; the tournament result is unknown.",
         _START + '\n…\n{"type":"round_end","match":"m1", …}   (end of file)',
         _START + '\n…\n{"type":"match_end","match":"m1","scores":{"ann":104,"bob":37},"winner":"ann"}'),
    Rule("F007", "unreadable-input", ERROR,
         "A path or stream cannot be read as a log: missing, not a regular file or folder, a folder "
         "without logs, binary data, compressed data under a plain `.jsonl` name, or corrupt/truncated "
         "compression.",
         "Nothing in such an input can be checked; the run reports it and goes on with the other inputs.",
         "drawlog validate missing.jsonl  (no such file)",
         "drawlog validate logs/  (a folder holding .jsonl, .jsonl.gz or .jsonl.zst files)"),
    Rule("S101", "bad-players", ERROR,
         "`players` does not list 2 to 4 players, or lists a player twice, or the deal cannot fit: "
         "players × `rules.hand` + `rules.reserve` is more than the 28 tiles of the set.",
         "Draw and All Fives are played by 2, 3 or 4 individuals; seat order is turn order, so ids must be "
         "unique; a deal needs enough tiles.",
         '{"type":"match_start","match":"m1","players":["ann","ann"]}',
         '{"type":"match_start","match":"m1","players":["ann","bob"]}'),
    Rule("S102", "bad-deal", ERROR,
         "A bad deal: a wrong hand size (Draw 7 each with 2–3 players, 6 with 4; All Fives 9, 7, 5 with 2, 3, 4; "
         "or `rules.hand`), a tile dealt twice, "
         "a player without a hand, or a hand for someone not playing.",
         "The deal fixes the stock: in Draw 14 tiles with 2 players, 7 with 3, 4 with 4.",
         '"hands":{"ann":[[0,0],[0,1],[0,2],[0,3],[0,4],[0,5]],"bob":[…7 tiles…]}  (ann has 6)',
         '"hands":{"ann":[[0,0],[0,1],[0,2],[0,3],[0,4],[0,5],[0,6]],"bob":[…7 tiles…]}'),
    Rule("S103", "bad-stock", ERROR,
         "The logged `stock` is not exactly the undealt tiles, each once.",
         "The stock is whatever was not dealt; a logged stock order is used to check each draw.",
         '"stock":[[6,6],[6,6],…]  ([6|6] listed twice)',
         '"stock":[…the 14 undealt tiles, in draw order…]'),
    Rule("S104", "wrong-opener", ERROR,
         "The opener is not a player, or (round 2 on) not the seat clockwise after the previous "
         "round's opener (Draw), or not the player who went out in the previous round (All Fives; "
         "after a blocked round any player opens).",
         "In Draw the opening passes one seat clockwise each round, whoever won the previous round; in "
         "All Fives whoever went out first opens the next hand.",
         'round 1 opener "ann", round 2 opener "ann"',
         'round 1 opener "ann", round 2 opener "bob"'),
    Rule("S105", "wrong-round-number", ERROR,
         "A round number is not the next one (or a `round_end` names another round).",
         "Rounds count 1, 2, 3 …; a skipped number means a lost deal.",
         '{"type":"round_start","match":"m1","round":3, …}   (after round 1)',
         '{"type":"round_start","match":"m1","round":2, …}   (after round 1)'),
    Rule("M201", "out-of-turn", ERROR,
         "A player acts out of turn, or someone who is not in the match acts.",
         "Turns go clockwise in the order of `players`, starting with the round's opener; a draw keeps the turn.",
         '{"type":"play","match":"m1","player":"bob","tile":[1,4]}   (ann to play)',
         '{"type":"play","match":"m1","player":"ann","tile":[1,4]}'),
    Rule("M202", "tile-not-held", ERROR,
         "A player places a tile they do not hold. The move is not applied.",
         "Only tiles in hand can be placed; this usually means a lost draw or a bot bug.",
         '{"type":"play","match":"m1","player":"ann","tile":[6,6]}   (ann opens; bob holds [6|6])',
         '{"type":"play","match":"m1","player":"ann","tile":[1,6]}   (ann holds [1|6])'),
    Rule("M203", "tile-does-not-match", ERROR,
         "The tile does not match the chosen end (or either end). The move is not applied.",
         "A tile joins the line only where one half equals the open value; a blank matches only a blank.",
         '{"type":"play","match":"m1","player":"bob","tile":[2,5],"end":"left"}   (ends 1 and 4)',
         '{"type":"play","match":"m1","player":"bob","tile":[4,5],"end":"right"}   (ends 1 and 4)'),
    Rule("M204", "end-missing", ERROR,
         "`end` is missing where the tile fits both ends with different results (in All Fives: "
         "fits more than one open end). The tile is placed on the first end it fits (left, right, up, down).",
         "Without the end the line after the move is unknown; it may be left out only when one line can result.",
         '{"type":"play","match":"m1","player":"bob","tile":[1,4]}   (ends 1 and 4)',
         '{"type":"play","match":"m1","player":"bob","tile":[1,4],"end":"right"}'),
    Rule("M205", "illegal-draw", ERROR,
         "A draw where no draw is allowed. Draw: the stock holds two tiles or fewer (the last "
         "`reserve`, two, are never drawn); a draw of a tile in the stock is applied, so the replay can "
         "go on. All Fives: a draw from an empty boneyard (not also M206).",
         "The last two stock tiles may never be drawn; a player who cannot place with the stock at two "
         "must pass.",
         '{"type":"draw","match":"m1","player":"ann","tile":[5,6]}   (stock holds 2)',
         '{"type":"pass","match":"m1","player":"ann"}   (stock holds 2, ann cannot place)'),
    Rule("M206", "draw-not-in-stock", ERROR,
         "A draw of a tile that is not in the stock, or not the next one of the logged `stock` order.",
         "A drawn tile must be in the stock and, when the log gives the stock's draw order, be the next "
         "one; a tile held or on the line cannot be drawn.",
         '{"type":"draw","match":"m1","player":"ann","tile":[1,4]}   (already on the line)',
         '{"type":"draw","match":"m1","player":"ann","tile":[2,3]}   (the next stock tile)'),
    Rule("M207", "pass-while-drawing-allowed", ERROR,
         "A pass while drawing is still allowed: Draw, the stock holds more than two tiles (`reserve`); "
         "All Fives, the boneyard is not empty.",
         "A player who cannot place must draw while drawing is possible; passing is allowed only "
         "with the stock at two (All Fives: with the boneyard empty).",
         '{"type":"pass","match":"m1","player":"bob"}   (stock holds 9, bob cannot place)',
         '{"type":"draw","match":"m1","player":"bob","tile":[2,3]}   (stock holds 9)'),
    Rule("M208", "pass-while-playable", ERROR,
         "A pass while holding a tile that fits the line.",
         "Passing because one does not want to place is illegal: a pass is for a player who cannot place.",
         '{"type":"pass","match":"m1","player":"bob"}   (stock holds 2, bob holds [4|5], ends 1 and 4)',
         '{"type":"play","match":"m1","player":"bob","tile":[4,5],"end":"right"}'),
    Rule("M209", "move-after-round-over", ERROR,
         "A move after the round is over (a player went out; with the stock down to two, every player "
         "passed in a row; in All Fives, a play reached the match target). The move is not applied.",
         "The round ends at domino or block (in All Fives also at the play that reaches the match target, "
         "which ends the match: `target`); the log should say `round_end` next.",
         '{"type":"pass","match":"m1","player":"bob"}   (ann just placed her last tile)',
         '{"type":"round_end","match":"m1","round":1,"reason":"domino","winner":"ann", …}'),
    Rule("M210", "draw-while-playable", ERROR,
         "All Fives: a draw while holding a tile that fits an open end (on an empty line every tile fits). "
         "The draw is applied.",
         "In All Fives a player who can place must place; drawing is only for a player who cannot.",
         '{"type":"draw","match":"m1","player":"bob","tile":[2,6]}   (bob holds [4|5], ends 1 and 4)',
         '{"type":"play","match":"m1","player":"bob","tile":[4,5],"end":"right"}'),
    Rule("M211", "drawn-tile-not-placed", ERROR,
         "All Fives: after drawing a tile that fits, any move but placing that tile (another tile, "
         "another draw, a pass).",
         "A player who could not place draws until a playable tile comes, and places it at once.",
         '{"type":"draw", …,"player":"bob","tile":[4,6]}\n{"type":"draw", …,"player":"bob","tile":[0,2]}'
         '   (ends 1 and 4: [4|6] fits)',
         '{"type":"draw", …,"player":"bob","tile":[4,6]}\n'
         '{"type":"play", …,"player":"bob","tile":[4,6],"end":"right"}'),
    Rule("M212", "arm-not-open", ERROR,
         "A play on `up` or `down` before those ends are open (both sides of the spinner covered), or "
         "with no spinner (so always in Draw). Applied when the tile matches the spinner (or the end of an "
         "arm started so); otherwise not applied.",
         "The spinner, the first double placed, opens its two arms only once a tile lies on each of its "
         "sides. Format v1.2: a tile that matches the spinner (or the end of an arm started so) is placed "
         "there all the same, so that the round replays on; any other is not.",
         '{"type":"play","match":"m1","player":"bob","tile":[5,1],"end":"up"}   ([5|5] leads, nothing on its sides)',
         '{"type":"play","match":"m1","player":"bob","tile":[5,1],"end":"right"}'),
    Rule("R301", "round-not-over", ERROR,
         "`round_end` while the round is not over, or with a `reason` other than how it ended.",
         "A round ends only by domino (a player went out) or block (everyone passed in a row with the stock at "
         "two), or in All Fives by `target` (a play brought the player's score to the match target).",
         '{"type":"round_end", …,"reason":"blocked", …}   (ann went out)',
         '{"type":"round_end", …,"reason":"domino","winner":"ann", …}'),
    Rule("R302", "wrong-round-winner", ERROR,
         "`round_end` names a winner other than the replay's (null for a blocked round with a tied lowest "
         "total; in All Fives null for any blocked round).",
         "Domino: who went out. Blocked, in Draw: the unique lowest hand total; tied lowest totals win "
         "nothing. Blocked, in All Fives: nobody.",
         '"reason":"blocked","winner":"ann"   (ann and bob both hold 3 pips)',
         '"reason":"blocked","winner":null,"points":{}'),
    Rule("R303", "wrong-round-points", ERROR,
         "`round_end` points disagree with the points recomputed from the hands left "
         "(a player left out claims 0). In All Fives they are each player's pips left, rounded to the "
         "nearest five, as a negative number.",
         "Draw: domino scores all opponents' pips; a block scores the opponents' totals minus the winner's "
         "own, exactly, never rounded. All Fives: every player loses the pips left, rounded to five, except "
         "in a round ended by `target`, where everyone gets 0.",
         '"points":{"ann":20}   (a block leaves hands of 3, 8 and 10 pips, ann holding the 3)',
         '"points":{"ann":15}'),
    Rule("R304", "wrong-revealed-hands", ERROR,
         "The revealed `hands` of a `round_end` disagree with the hands the replay leaves (players left "
         "out are not checked).",
         "Revealed hands are what the points are counted from; they must be the tiles still held.",
         '"hands":{"bob":[[6,6]]}   (bob still holds [1|2] and [6|6])',
         '"hands":{"bob":[[1,2],[6,6]]}'),
    Rule("R305", "target-not-reached", ERROR,
         "`match_end` before any score reached the target, or a new round after the match was decided.",
         "A Draw match ends as soon as a settled round brings a score to the target (100 with 2 players, "
         "61 with 3–4); an All Fives match at the play that brings a score to it (250 and 200), and not "
         "before; a match a player forfeits (`forfeit`, format v1.2) needs no target.",
         '{"type":"match_end", …,"scores":{"ann":54,"bob":31}, …}',
         '{"type":"match_end", …,"scores":{"ann":104,"bob":31},"winner":"ann"}'),
    Rule("R306", "wrong-match-result", ERROR,
         "`match_end` scores or winner disagree with the replay.",
         "Final scores are the sums of the recomputed round points (All Fives: play points and end-of-round "
         "points); the winner is the player whose score "
         "first reached the target (equal highest scores there draw the match). A `forfeit` (format v1.2) "
         "stops the match: a round in progress takes no end-of-round points, the other players' highest "
         "score wins (a tie: no winner), and a forfeit naming someone not playing is R306 too.",
         '"scores":{"ann":104,"bob":31},"winner":"bob"',
         '"scores":{"ann":104,"bob":31},"winner":"ann"'),
    Rule("R307", "round-without-end", ERROR,
         "A round was left without `round_end` (a `round_start` or `match_end` came first).",
         "Every round's result must be stated so it can be checked; the replay settles it and goes on.",
         '…\n{"type":"round_start","match":"m1","round":2, …}   (no round_end for round 1)',
         '…\n{"type":"round_end","match":"m1","round":1, …}\n{"type":"round_start","match":"m1","round":2, …}'),
    Rule("R308", "wrong-play-points", ERROR,
         "A `play` claims `points` other than what it scored: the All Fives count after the play when it "
         "is a positive multiple of five, else 0; in Draw, where placing never scores, anything but 0.",
         "After each placement All Fives adds the open ends (a double at an end counts both halves); a "
         "multiple of five scores. `[5|5]` leads: 10. `[5|3]` right: 13, nothing. `[2|5]` left: 5.",
         '{"type":"play", …,"tile":[5,3],"end":"right","points":15}   ([5|5] alone before: the count is 13)',
         '{"type":"play", …,"tile":[5,3],"end":"right","points":0}'),
    Rule("W401", "unknown-field", WARNING,
         "An event carries a field the format does not define; it is ignored.",
         "Often a bot's private field; the event is checked without it. A misspelt field (`tiles` for "
         "`tile`) also leaves the real one missing, which is F002.",
         '{"type":"pass","match":"m1","player":"bob","reason":"stuck"}',
         '{"type":"pass","match":"m1","player":"bob"}'),
    Rule("W402", "non-standard-target", WARNING,
         "`target` or house `rules` are not the game's standard (Draw: target 100 with 2 players, 61 "
         "with 3–4, hand 7 / 7 / 6, reserve 2; All Fives: target 250 / 200, hand 9 / 7 / 5), reported once "
         "per match.",
         "House rules are allowed and used, but results are not comparable with standard matches; "
         "`--strict` rejects them.",
         '{"type":"match_start","match":"m1","players":["ann","bob"],"target":50}',
         '{"type":"match_start","match":"m1","players":["ann","bob"]}'),
    Rule("W403", "variant-not-replayed", WARNING,
         "Retired: every variant of the format (`draw`, `all-fives`) is replayed, so this is never "
         "reported. It was given to All Fives matches before drawlog replayed them.",
         "Kept so that `--select` and `--ignore` lists naming it still work.",
         '{"type":"match_start","match":"m1","players":["ann","bob"],"variant":"all-fives"}   (before)',
         '{"type":"match_start","match":"m1","players":["ann","bob"],"variant":"all-fives"}   (now replayed)',
         retired=True),
    Rule("W404", "empty-input", WARNING,
         "An input holds no lines at all (an empty file, or nothing on standard input).",
         "An empty log breaks no rule, but a bot or server that wrote nothing has most likely failed: "
         "the run goes on, and `--strict` makes it fail.",
         "mybot --games 0 | drawlog validate -   (nothing on standard input)",
         "mybot --games 1 | drawlog validate -   (the match's events)"),
    Rule("W405", "bad-timestamp", WARNING,
         "A `ts` is not an RFC 3339 timestamp (date, `T`, time with seconds, and the offset: `Z` or `+02:00`); "
         "its value is ignored (a `match_start`'s then gives the match no `started_at`).",
         "Times order matches for ratings and reports; a time without its offset, or a Unix time in a string, "
         "could be read several ways, so drawlog reads none of them and says so.",
         '{"type":"pass","match":"m1","player":"bob","ts":"01/05/2024 12:00"}',
         '{"type":"pass","match":"m1","player":"bob","ts":"2024-05-01T12:00:00Z"}'),
)

RULES_BY_CODE: dict[str, Rule] = {rule.code: rule for rule in RULES}
SEVERITY: dict[str, str] = {rule.code: rule.severity for rule in RULES}


def find_rule(code_or_name: str) -> Rule | None:
    """The rule with this code (any case) or kebab-case name."""
    key = code_or_name.strip()
    rule = RULES_BY_CODE.get(key.upper())
    if rule is not None:
        return rule
    return next((rule for rule in RULES if rule.name == key.lower()), None)


def matches_prefix(code: str, prefixes: tuple[str, ...]) -> bool:
    """Whether ``code`` starts with one of the prefixes (``M``, ``M20``, ``M205``)."""
    return code.startswith(prefixes)


def select_codes(select: list[str] | None, ignore: list[str] | None) -> frozenset[str]:
    """The codes kept by ``--select`` and ``--ignore`` prefixes (``ValueError`` on an unknown prefix)."""
    def normalise(values: list[str] | None) -> tuple[str, ...]:
        prefixes = []
        for value in values or []:
            for part in value.split(","):
                part = part.strip().upper()
                if not part:
                    continue
                if part != "ALL" and not any(code.startswith(part) for code in RULES_BY_CODE):
                    raise ValueError(f"{part!r} matches no rule code (see `drawlog rule --all`)")
                prefixes.append("" if part == "ALL" else part)
        return tuple(prefixes)

    chosen = normalise(select) or ("",)
    dropped = normalise(ignore)
    return frozenset(
        code for code in RULES_BY_CODE
        if matches_prefix(code, chosen) and not (dropped and matches_prefix(code, dropped))
    )
