"""The rule catalog in Turkish: each code's name and summary, in the words of seed 002 (Draw).

Field names stay as the log writes them (`seq`, `round_end`); *taş*, *dizi*, *uç*, *çekme yığını*, *oyun eli*
and *açan oyuncu* are 002's words.
"""

from __future__ import annotations

#: Each rule code's name and summary.
RULES_TR: dict[str, tuple[str, str]] = {
    "F001": ("geçersiz JSON",
             ("Bir satır geçerli JSON değil (ya da UTF-8 değil ya da 1 MiB'tan, 1.048.576 bayttan "
              "uzun).")),
    "F002": ("biçime uymayan olay",
             ("Bir olay günlük biçimine uymuyor: JSON nesnesi olmayan bir satır, bilinmeyen bir "
              "`type`, eksik ya da yanlış türde bir alan, 0–6 arası iki tamsayı olmayan bir taş, "
              "bilinmeyen bir `variant`, `rules` içinde bilinmeyen ya da yanlış türde bir anahtar "
              "(ya da bir All Fives karşılaşmasında `rules.reserve`).")),
    "F003": ("sırası bozuk seq",
             ("Bir karşılaşmanın `seq` numaraları 1, 2, 3 … diye ilerlemiyor (bir boşluk, bir "
              "tekrar ya da bir geri adım).")),
    "F004": ("karşılaşma ya da oyun eli dışında",
             ("Başlamamış (ya da bitmiş) bir karşılaşmanın olayı ya da oyun eli dışında bir hamle "
              "veya `round_end`.")),
    "F005": ("yeniden başlatılan karşılaşma",
             "Bir karşılaşma kimliği ikinci kez başlatılıyor (aynı ya da başka bir dosyada)."),
    "F006": ("bitmemiş karşılaşma",
             ("Girdi bir karşılaşmanın ortasında bitiyor (`match_end` yok); karşılaşmanın son "
              "satırında bildirilir.")),
    "F007": ("okunamayan girdi",
             ("Bir yol ya da akış günlük olarak okunamıyor: yok, düzenli bir dosya ya da klasör "
              "değil, günlük içermeyen bir klasör, ikili veri, düz bir `.jsonl` adı altında "
              "sıkıştırılmış veri ya da bozuk veya kesik sıkıştırma.")),
    "S101": ("hatalı oyuncular",
             ("`players` 2 ile 4 arasında oyuncu listelemiyor ya da bir oyuncuyu iki kez "
              "listeliyor ya da dağıtım sığmıyor: oyuncular × `rules.hand` + `rules.reserve` "
              "takımın 28 taşından fazla.")),
    "S102": ("hatalı dağıtım",
             ("Hatalı dağıtım: yanlış el büyüklüğü (Draw: iki veya üç oyuncuda kişiye yedi, dört "
              "oyuncuda altı; All Fives: 2, 3, 4 oyuncuda 9, 7, 5; ya da `rules.hand`), iki kez "
              "dağıtılan bir taş, eli olmayan bir oyuncu ya da oynamayan biri için bir el.")),
    "S103": ("hatalı çekme yığını",
             "Kaydedilen `stock`, dağıtılmayan taşların tam olarak her biri bir kez değil."),
    "S104": ("yanlış açan oyuncu",
             ("Açan oyuncu bir oyuncu değil ya da (2. oyun elinden itibaren) önceki açan oyuncudan"
              " saat yönünde bir sonraki koltuk değil (Draw) ya da önceki oyun elinde elini ilk "
              "bitiren oyuncu değil (All Fives; tıkanan bir oyun elinden sonra herhangi bir oyuncu"
              " açar).")),
    "S105": ("yanlış oyun eli numarası",
             ("Bir oyun eli numarası bir sonraki numara değil (ya da bir `round_end` başka bir "
              "oyun elini belirtiyor).")),
    "M201": ("sıra dışı hamle",
             ("Bir oyuncu sırası değilken hamle yapıyor ya da karşılaşmada olmayan biri hamle "
              "yapıyor.")),
    "M202": ("elde olmayan taş",
             "Bir oyuncu elinde olmayan bir taşı yerleştiriyor. Hamle uygulanmaz."),
    "M203": ("uymayan taş",
             "Taş seçilen uca (ya da iki uçtan hiçbirine) uymuyor. Hamle uygulanmaz."),
    "M204": ("eksik uç",
             ("Taş iki uca farklı sonuçlarla uyduğu hâlde `end` yok (All Fives'ta: birden fazla "
              "açık uca uyuyor). Taş uyduğu ilk uca yerleştirilir (sol, sağ, üst, alt).")),
    "M205": ("kurala aykırı çekme",
             ("Çekmeye izin verilmeyen bir çekme. Draw: çekme yığınında iki ya da daha az taş var "
              "(son `reserve`, iki taş, hiç çekilmez); yığındaki bir taşın çekilmesi uygulanır, "
              "böylece yeniden oynatma sürebilir. All Fives: boş çekme yığınından çekme (ayrıca "
              "M206 değil).")),
    "M206": ("yığında olmayan taşı çekme",
             ("Çekme yığınında olmayan ya da kaydedilen `stock` sırasında bir sonraki olmayan bir "
              "taşın çekilmesi.")),
    "M207": ("çekmek mümkünken pas",
             ("Çekmeye hâlâ izin varken pas: Draw'da çekme yığınında ikiden fazla taş var "
              "(`reserve`); All Fives'ta çekme yığını boş değil.")),
    "M208": ("oynanabilir taş varken pas",
             "Diziye uyan bir taş eldeyken pas geçmek."),
    "M209": ("oyun eli bittikten sonra hamle",
             ("Oyun eli bittikten sonra bir hamle (bir oyuncu son taşını oynadı ya da çekme yığını"
              " iki taşa inmişken herkes art arda pas geçti; All Fives'ta bir yerleştirme maç hedefine ulaştı). "
              "Hamle uygulanmaz.")),
    "M210": ("oynanabilir taş varken çekme",
             ("All Fives: açık bir uca uyan taş eldeyken çekme (boş dizide her taş uyar). Çekme "
              "uygulanır.")),
    "M211": ("çekilen taş yerleştirilmedi",
             ("All Fives: uyan bir taş çektikten sonra o taşı yerleştirmekten başka herhangi bir "
              "hamle (başka bir taş, bir çekme daha, pas).")),
    "M212": ("kol açık değil",
             ("`up` ya da `down` uçları açılmadan (spinner'ın iki yanı da taşlı değilken) ya da "
              "spinner yokken (yani Draw'da her zaman) bu uçlara yerleştirme. Taş spinner'a (ya da böyle "
              "başlamış kolun ucuna) uyuyorsa uygulanır; uymuyorsa uygulanmaz.")),
    "R301": ("oyun eli bitmedi",
             ("Oyun eli bitmemişken ya da oyun elinin bitiş biçiminden başka bir `reason` ile "
              "gelen `round_end`.")),
    "R302": ("yanlış oyun eli kazananı",
             ("`round_end` yeniden oynatmanınkinden başka bir kazanan belirtiyor (en düşük "
              "toplamların eşit olduğu tıkanan oyun elinde null; All Fives'ta her tıkanan oyun "
              "elinde null).")),
    "R303": ("yanlış oyun eli puanları",
             ("`round_end` puanları kalan ellerden yeniden hesaplanan puanlarla uyuşmuyor "
              "(listelenmeyen oyuncu 0 alır). All Fives'ta her oyuncunun elinde kalan noktalar, en"
              " yakın beşin katına yuvarlanarak, negatif bir sayı olarak.")),
    "R304": ("yanlış gösterilen eller",
             ("Bir `round_end` olayında gösterilen `hands`, yeniden oynatmanın bıraktığı ellerle "
              "uyuşmuyor (listelenmeyen oyuncular denetlenmez).")),
    "R305": ("hedefe ulaşılmadı",
             ("Hiçbir puan hedefe ulaşmadan `match_end` ya da karşılaşma sonuçlandıktan sonra yeni"
              " bir oyun eli.")),
    "R306": ("yanlış karşılaşma sonucu",
             "`match_end` puanları ya da kazananı yeniden oynatmayla uyuşmuyor."),
    "R307": ("sonu olmayan oyun eli",
             ("Bir oyun eli `round_end` olmadan bırakıldı (önce bir `round_start` ya da "
              "`match_end` geldi).")),
    "R308": ("yanlış yerleştirme puanı",
             ("Bir `play`, kazandığından başka `points` bildiriyor: All Fives'ta yerleştirmeden "
              "sonraki uç toplamı beşin pozitif bir katıysa o toplam, değilse 0; yerleştirmenin "
              "puan kazandırmadığı Draw'da 0 dışında her şey.")),
    "W401": ("bilinmeyen alan",
             "Bir olay biçimin tanımlamadığı bir alan taşıyor; yok sayılır."),
    "W402": ("standart dışı hedef",
             ("`target` ya da ev `rules` oyunun standardı değil (Draw: iki oyuncuda hedef 100, üç "
              "veya dört oyuncuda 61, el 7 / 7 / 6, korunan 2 taş; All Fives: hedef 250 / 200, el "
              "9 / 7 / 5); karşılaşma başına bir kez bildirilir.")),
    "W403": ("yeniden oynatılmayan varyant",
             ("Kullanımdan kaldırıldı: biçimin her varyantı (`draw`, `all-fives`) yeniden "
              "oynatılır, bu yüzden hiç bildirilmez. drawlog All Fives karşılaşmalarını yeniden "
              "oynatmaya başlamadan önce onlara verilirdi.")),
    "W404": ("boş girdi",
             "Bir girdide hiç satır yok (boş bir dosya ya da standart girdide hiçbir şey)."),
    "W405": ("hatalı zaman damgası",
             ("Bir `ts`, RFC 3339 zaman damgası değil (tarih, `T`, saniyeli saat ve fark: `Z` ya "
              "da `+02:00`); değeri yok sayılır (bir `match_start` olayında karşılaşma bu durumda "
              "`started_at` almaz).")),
}
