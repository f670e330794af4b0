"""The rule catalog in Polish: each code's name and summary, in the words of seeds 000 (Draw) and 004 (All Fives).

Field names stay as the log writes them (`seq`, `round_end`); *klocek*, *łańcuch*, *stos dobierania*, *rezerwa*
and *runda* are 000's words, *boneyard*, *spinner*, *boki* and *końcówki* 004's.
"""

from __future__ import annotations

#: Each rule code's name and summary.
RULES_PL: dict[str, tuple[str, str]] = {
    "F001": ("niepoprawny JSON",
             ("Wiersz nie jest poprawnym JSON-em (albo nie jest zapisany w UTF-8, albo jest "
              "dłuższy niż 1 MiB, 1 048 576 bajtów).")),
    "F002": ("niezgodność z formatem",
             ("Zdarzenie nie pasuje do formatu logu: wiersz, który nie jest obiektem JSON, "
              "nieznany `type`, brakujące pole lub pole złego typu, klocek, który nie jest parą "
              "liczb całkowitych 0–6, nieznany `variant`, nieznany klucz w `rules` lub klucz złego"
              " typu (albo `rules.reserve` w meczu Wszystkie piątki).")),
    "F003": ("zła kolejność seq",
             "Numery `seq` meczu nie biegną 1, 2, 3 … (luka, powtórzenie albo krok wstecz)."),
    "F004": ("poza meczem lub rundą",
             ("Zdarzenie meczu, który się nie zaczął (albo już się skończył), albo ruch lub "
              "`round_end` poza rundą.")),
    "F005": ("mecz rozpoczęty ponownie",
             "Mecz o tym identyfikatorze rozpoczęto drugi raz (w tym samym lub innym pliku)."),
    "F006": ("mecz niedokończony",
             ("Dane wejściowe kończą się w trakcie meczu (brak `match_end`); zgłaszane w ostatnim "
              "wierszu meczu.")),
    "F007": ("nieczytelne wejście",
             ("Ścieżki lub strumienia nie da się odczytać jako logu: brak pliku, coś, co nie jest "
              "zwykłym plikiem ani folderem, folder bez logów, dane binarne, dane skompresowane "
              "pod zwykłą nazwą `.jsonl` albo uszkodzona lub ucięta kompresja.")),
    "S101": ("błędni gracze",
             ("`players` nie wymienia od 2 do 4 graczy albo wymienia gracza dwa razy, albo "
              "rozdanie się nie mieści: gracze × `rules.hand` + `rules.reserve` to więcej niż 28 "
              "klocków zestawu.")),
    "S102": ("błędne rozdanie",
             ("Błędne rozdanie: zła liczba klocków w ręce (Draw: po siedem przy dwóch lub trzech "
              "graczach, po sześć przy czterech; Wszystkie piątki: 9, 7, 5 przy 2, 3, 4 graczach; "
              "albo `rules.hand`), klocek rozdany dwa razy, gracz bez ręki albo ręka kogoś, kto "
              "nie gra.")),
    "S103": ("błędny stos dobierania",
             "Zapisany `stock` to nie dokładnie nierozdane klocki, każdy jeden raz."),
    "S104": ("zły otwierający",
             ("Otwierający nie jest graczem albo (od rundy 2) nie siedzi o jedno miejsce zgodnie z"
              " ruchem wskazówek zegara od poprzedniego otwierającego (Draw), albo nie jest "
              "graczem, który jako pierwszy wyszedł w poprzednim rozdaniu (Wszystkie piątki; po "
              "zablokowanym rozdaniu zaczyna dowolny gracz).")),
    "S105": ("zły numer rundy",
             "Numer rundy nie jest kolejnym numerem (albo `round_end` podaje inną rundę)."),
    "M201": ("ruch poza kolejką",
             "Gracz wykonuje ruch poza swoją kolejką albo ruch wykonuje ktoś spoza meczu."),
    "M202": ("klocek spoza ręki",
             "Gracz dokłada klocek, którego nie ma w ręce. Ruch nie zostaje wykonany."),
    "M203": ("klocek nie pasuje",
             ("Klocek nie pasuje do wybranego końca (ani do żadnego końca). Ruch nie zostaje "
              "wykonany.")),
    "M204": ("brak końca",
             ("Brak `end`, gdy klocek pasuje do obu końców z różnym skutkiem (we Wszystkich "
              "piątkach: pasuje do więcej niż jednego wolnego końca). Klocek zostaje dołożony do "
              "pierwszego końca, do którego pasuje (lewy, prawy, górna końcówka, dolna końcówka).")),
    "M205": ("niedozwolone dobranie",
             ("Dobranie, gdy dobierać nie wolno. Draw: w stosie są dwa klocki lub mniej (ostatnich"
              " `reserve`, dwóch, nie wolno dobrać); dobranie klocka ze stosu zostaje wykonane, by"
              " odtwarzanie mogło trwać dalej. Wszystkie piątki: dobranie z pustego boneyarda "
              "(wtedy nie także M206).")),
    "M206": ("dobrany klocek spoza stosu",
             ("Dobranie klocka, którego nie ma w stosie dobierania albo który nie jest następny w "
              "zapisanej kolejności `stock`.")),
    "M207": ("pas, gdy wolno dobierać",
             ("Pas, gdy dobieranie jest jeszcze dozwolone: w Draw w stosie są więcej niż dwa "
              "klocki (`reserve`); we Wszystkich piątkach boneyard nie jest pusty.")),
    "M208": ("pas z grywalnym klockiem",
             "Pas, choć gracz ma klocek pasujący do łańcucha."),
    "M209": ("ruch po końcu rundy",
             ("Ruch po końcu rundy (ktoś zagrał ostatni klocek albo, gdy w stosie zostały dwa "
              "klocki, wszyscy po kolei spasowali; we Wszystkich piątkach: dołożenie dało graczowi cel meczu). "
              "Ruch nie zostaje wykonany.")),
    "M210": ("dobranie z grywalnym klockiem",
             ("Wszystkie piątki: dobranie, choć gracz ma klocek pasujący do wolnego końca (na "
              "pustym stole pasuje każdy klocek). Dobranie zostaje wykonane.")),
    "M211": ("dobrany klocek niedołożony",
             ("Wszystkie piątki: po dobraniu pasującego klocka dowolny ruch inny niż dołożenie "
              "tego klocka (inny klocek, kolejne dobranie, pas).")),
    "M212": ("końcówka niedostępna",
             ("Dołożenie na `up` lub `down`, zanim te końcówki są dostępne (oba boki spinnera "
              "zajęte), albo bez spinnera (czyli zawsze w Draw). Wykonany, gdy klocek pasuje do spinnera "
              "(albo do końca tak zaczętej końcówki); inaczej nie zostaje wykonany.")),
    "R301": ("runda nieskończona",
             ("`round_end`, gdy runda się nie skończyła, albo z `reason` innym niż sposób, w jaki "
              "się skończyła.")),
    "R302": ("zły zwycięzca rundy",
             ("`round_end` podaje innego zwycięzcę niż odtwarzanie (null przy zablokowanej rundzie"
              " z remisem najmniejszych sum; we Wszystkich piątkach null przy każdym zablokowanym "
              "rozdaniu).")),
    "R303": ("złe punkty rundy",
             ("Punkty w `round_end` różnią się od przeliczonych z rąk, które zostały (pominięty "
              "gracz ma 0). We Wszystkich piątkach to oczka, które zostały każdemu graczowi, "
              "zaokrąglone do najbliższej wielokrotności pięciu, jako liczba ujemna.")),
    "R304": ("złe ujawnione ręce",
             ("Ujawnione `hands` w `round_end` różnią się od rąk, które zostawia odtwarzanie "
              "(pominiętych graczy się nie sprawdza).")),
    "R305": ("cel nieosiągnięty",
             ("`match_end`, zanim którykolwiek wynik osiągnął cel, albo nowa runda po "
              "rozstrzygnięciu meczu.")),
    "R306": ("zły wynik meczu",
             "Wyniki lub zwycięzca w `match_end` różnią się od odtwarzania."),
    "R307": ("runda bez końca",
             "Runda została bez `round_end` (wcześniej przyszło `round_start` albo `match_end`)."),
    "R308": ("złe punkty za dołożenie",
             ("`play` podaje `points` inne niż zdobyte: we Wszystkich piątkach suma końców po "
              "dołożeniu, gdy jest dodatnią wielokrotnością pięciu, inaczej 0; w Draw, gdzie "
              "dołożenie klocka nie daje punktów, cokolwiek poza 0.")),
    "W401": ("nieznane pole",
             "Zdarzenie ma pole, którego format nie definiuje; zostaje pominięte."),
    "W402": ("niestandardowy cel",
             ("`target` lub domowe `rules` odbiegają od standardu gry (Draw: cel 100 przy dwóch "
              "graczach, 61 przy trzech lub czterech, ręka 7 / 7 / 6, rezerwa 2; Wszystkie piątki:"
              " cel 250 / 200, ręka 9 / 7 / 5); zgłaszane raz na mecz.")),
    "W403": ("wariant nieodtwarzany",
             ("Wycofany: każdy wariant formatu (`draw`, `all-fives`) jest odtwarzany, więc ten kod"
              " nigdy nie jest zgłaszany. Dostawały go mecze Wszystkie piątki, zanim drawlog "
              "zaczął je odtwarzać.")),
    "W404": ("puste wejście",
             "Wejście nie ma żadnych wierszy (pusty plik albo nic na standardowym wejściu)."),
    "W405": ("zły znacznik czasu",
             ("`ts` nie jest znacznikiem czasu RFC 3339 (data, `T`, godzina z sekundami i strefa: "
              "`Z` albo `+02:00`); jego wartość zostaje pominięta (przy `match_start` mecz nie "
              "dostaje wtedy `started_at`).")),
}
