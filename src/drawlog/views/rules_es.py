"""The rule catalog in Spanish: each code's name and summary, in the words of seed 003 (Draw).

Field names stay as the log writes them (`seq`, `round_end`); *ficha*, *línea*, *extremo*, *montón*, *ronda*,
*reserva* and *jugador de apertura* are 003's words.
"""

from __future__ import annotations

#: Each rule code's name and summary.
RULES_ES: dict[str, tuple[str, str]] = {
    "F001": ("JSON no válido",
             "Una línea no es JSON válido (o no está en UTF-8, o supera 1 MiB, 1.048.576 bytes)."),
    "F002": ("no se ajusta al formato",
             ("Un evento no se ajusta al formato del registro: una línea que no es un objeto JSON,"
              " un `type` desconocido, un campo que falta o de tipo erróneo, una ficha que no son "
              "dos enteros de 0 a 6, un `variant` desconocido, una clave desconocida o de tipo "
              "erróneo en `rules` (o `rules.reserve` en una partida de All Fives).")),
    "F003": ("seq fuera de orden",
             ("Los números `seq` de una partida no siguen 1, 2, 3 … (un hueco, una repetición o un"
              " paso atrás).")),
    "F004": ("fuera de partida o ronda",
             ("Un evento de una partida que no ha empezado (o que ya terminó), o una jugada o un "
              "`round_end` fuera de una ronda.")),
    "F005": ("partida reiniciada",
             ("Un identificador de partida se inicia por segunda vez (en el mismo archivo o en "
              "otro).")),
    "F006": ("partida sin terminar",
             ("La entrada termina en mitad de una partida (sin `match_end`); se informa en la "
              "última línea de la partida.")),
    "F007": ("entrada ilegible",
             ("Una ruta o un flujo no se puede leer como registro: no existe, no es un archivo "
              "normal ni una carpeta, una carpeta sin registros, datos binarios, datos comprimidos"
              " con un simple nombre `.jsonl`, o compresión dañada o truncada.")),
    "S101": ("jugadores erróneos",
             ("`players` no enumera de 2 a 4 jugadores, o repite un jugador, o el reparto no cabe:"
              " jugadores × `rules.hand` + `rules.reserve` supera las 28 fichas del juego.")),
    "S102": ("reparto erróneo",
             ("Un reparto erróneo: un tamaño de mano equivocado (Draw: siete fichas por jugador si"
              " son dos o tres, seis si son cuatro; All Fives: 9, 7, 5 con 2, 3, 4; o "
              "`rules.hand`), una ficha repartida dos veces, un jugador sin mano o una mano de "
              "alguien que no juega.")),
    "S103": ("montón erróneo",
             ("El `stock` registrado no son exactamente las fichas no repartidas, cada una una "
              "vez.")),
    "S104": ("apertura equivocada",
             ("El jugador de apertura no es un jugador o (desde la ronda 2) no es el asiento "
              "siguiente en sentido horario al anterior jugador de apertura (Draw), o no es quien "
              "se quedó antes sin fichas en la ronda anterior (All Fives; tras una ronda bloqueada"
              " abre cualquier jugador).")),
    "S105": ("número de ronda equivocado",
             "Un número de ronda no es el siguiente (o un `round_end` nombra otra ronda)."),
    "M201": ("fuera de turno",
             "Un jugador actúa fuera de su turno, o actúa alguien que no está en la partida."),
    "M202": ("ficha que no tiene",
             "Un jugador coloca una ficha que no tiene en la mano. La jugada no se aplica."),
    "M203": ("ficha que no coincide",
             ("La ficha no coincide con el extremo elegido (ni con ninguno de los dos). La jugada "
              "no se aplica.")),
    "M204": ("falta el extremo",
             ("Falta `end` cuando la ficha encaja en los dos extremos con resultados distintos (en"
              " All Fives: encaja en más de un extremo libre). La ficha se coloca en el primer "
              "extremo en que encaja (izquierda, derecha, arriba, abajo).")),
    "M205": ("robo no permitido",
             ("Un robo cuando no se puede robar. Draw: al montón le quedan dos fichas o menos (las"
              " últimas `reserve`, dos, no se roban); el robo de una ficha del montón se aplica "
              "para que la reproducción pueda seguir. All Fives: un robo del montón vacío (sin "
              "añadir M206).")),
    "M206": ("ficha robada fuera del montón",
             ("El robo de una ficha que no está en el montón, o que no es la siguiente del orden "
              "registrado en `stock`.")),
    "M207": ("pase pudiendo robar",
             ("Un pase cuando aún se puede robar: en Draw, el montón tiene más de dos fichas "
              "(`reserve`); en All Fives, el montón no está vacío.")),
    "M208": ("pase con ficha jugable",
             "Un pase teniendo una ficha que coincide con la línea."),
    "M209": ("jugada tras el final de la ronda",
             ("Una jugada después de terminar la ronda (alguien jugó su última ficha o, con dos "
              "fichas en el montón, todos pasaron seguidos; en All Fives, una jugada alcanzó la meta de la "
              "partida). La jugada no se aplica.")),
    "M210": ("robo con ficha jugable",
             ("All Fives: un robo teniendo una ficha que coincide con un extremo libre (con la "
              "mesa vacía toda ficha es jugable). El robo se aplica.")),
    "M211": ("ficha robada sin colocar",
             ("All Fives: tras robar una ficha jugable, cualquier jugada que no sea colocar esa "
              "ficha (otra ficha, otro robo, un pase).")),
    "M212": ("brazo no abierto",
             ("Una jugada en `up` o `down` antes de que esos extremos se abran (los dos lados del "
              "spinner cubiertos), o sin spinner (es decir, siempre en Draw). Se aplica si la ficha "
              "coincide con el spinner (o con el extremo de un brazo así empezado); si no, no se aplica.")),
    "R301": ("la ronda no ha terminado",
             ("`round_end` cuando la ronda no ha terminado, o con un `reason` distinto de cómo "
              "terminó.")),
    "R302": ("ganador de ronda equivocado",
             ("`round_end` nombra un ganador distinto del de la reproducción (null en una ronda "
              "bloqueada con empate en el mínimo; en All Fives, null en toda ronda bloqueada).")),
    "R303": ("puntos de ronda equivocados",
             ("Los puntos de `round_end` no coinciden con los recalculados a partir de las manos "
              "restantes (un jugador omitido anota 0). En All Fives son los puntos que le quedan a"
              " cada jugador, redondeados al múltiplo de cinco más cercano, como número negativo.")),
    "R304": ("manos reveladas equivocadas",
             ("Las `hands` reveladas en un `round_end` no coinciden con las manos que deja la "
              "reproducción (los jugadores omitidos no se comprueban).")),
    "R305": ("meta no alcanzada",
             ("`match_end` antes de que algún marcador alcance la meta, o una ronda nueva después "
              "de decidirse la partida.")),
    "R306": ("resultado de la partida equivocado",
             "Los marcadores o el ganador de `match_end` no coinciden con la reproducción."),
    "R307": ("ronda sin final",
             "Una ronda quedó sin `round_end` (llegó antes un `round_start` o un `match_end`)."),
    "R308": ("puntos de jugada equivocados",
             ("Un `play` declara `points` distintos de los obtenidos: en All Fives, la suma de los"
              " extremos tras la jugada si es un múltiplo positivo de cinco, si no 0; en Draw, "
              "donde colocar fichas no da puntos, cualquier valor distinto de 0.")),
    "W401": ("campo desconocido",
             "Un evento lleva un campo que el formato no define; se ignora."),
    "W402": ("meta no estándar",
             ("`target` o las `rules` de la casa no son las estándar del juego (Draw: meta 100 "
              "entre dos jugadores, 61 entre tres o cuatro, mano 7 / 7 / 6, reserva 2; All Fives: "
              "meta 250 / 200, mano 9 / 7 / 5); se informa una vez por partida.")),
    "W403": ("variante no reproducida",
             ("Retirado: toda variante del formato (`draw`, `all-fives`) se reproduce, así que "
              "nunca se informa. Se daba a las partidas de All Fives antes de que drawlog las "
              "reprodujera.")),
    "W404": ("entrada vacía",
             ("Una entrada no tiene ninguna línea (un archivo vacío, o nada en la entrada "
              "estándar).")),
    "W405": ("marca de tiempo errónea",
             ("Un `ts` no es una marca de tiempo RFC 3339 (fecha, `T`, hora con segundos y "
              "desfase: `Z` o `+02:00`); su valor se ignora (en un `match_start`, la partida queda"
              " entonces sin `started_at`).")),
}
