"""French of the engine's refusals (``engine.IllegalAction`` templates), in the vocabulary of the web
table's French (service/static/play/i18n.js: le brasseur, la mise, la retourne, le preneur, garder)
and of docs/rules.md (dans la boîte). Card codes (``AS``, ``TH``, ``BJ``), field names and action
types stay as the API spells them."""

from __future__ import annotations

RULES: dict[str, str] = {
    # --- parsing an action (ALL-6) --------------------------------------------------------------------
    "'{key}' must be a card code like 'TS' or 'BJ' (rank A K Q J T 9 8 7 6 5 4, then suit S C D H), got "
    "{value!r}":
        "« {key} » doit être un code de carte comme « TS » ou « BJ » (rang A K Q J T 9 8 7 6 5 4, puis "
        "couleur S C D H), reçu {value!r}",
    "'{key}' must be a whole number, got {value!r}": "« {key} » doit être un nombre entier, reçu {value!r}",
    "'{key}' must be one of {allowed}, got {value!r}":
        "« {key} » doit être l'un de {allowed}, reçu {value!r}",
    "an action is a JSON object with a 'type', got {kind}":
        "une action est un objet JSON avec un « type », reçu {kind}",
    "'no_trump' must be true or false, got {value!r}":
        "« no_trump » doit valoir true ou false, reçu {value!r}",
    "a bid needs 'points' (Le Rough) or 'tricks' and 'suit' (Le 500)":
        "une annonce demande « points » (Le Rough) ou « tricks » et « suit » (Le 500)",
    "'cards' must be a list of card codes": "« cards » doit être une liste de codes de cartes",
    "'cards' names the same card twice": "« cards » nomme deux fois la même carte",
    "unknown action type {kind!r}; expected one of pass, bid, keep, discard, play, order_up, exchange, "
    "name_trump, call_partner, go_alone":
        "type d'action inconnu {kind!r} ; attendu : pass, bid, keep, discard, play, order_up, exchange, "
        "name_trump, call_partner ou go_alone",
    "seat must be 0..{last} or None": "le siège doit aller de 0 à {last}, ou être None",
    # --- turns and phases (ALL-1, ALL-2) ---------------------------------------------------------------
    "it is seat {to_act}'s turn, not seat {seat}'s": "c'est au tour du siège {to_act}, pas du siège {seat}",
    "the match starts when every seat is taken": "la partie commence quand tous les sièges sont pris",
    "the match is over; nobody acts any more": "la partie est terminée ; plus personne ne joue",
    "the match has already started": "la partie a déjà commencé",
    "'{action}' is not possible now: bid or pass":
        "« {action} » n'est pas possible maintenant : annoncez ou passez",
    "'{action}' is not possible now: bid, keep (dealer) or pass":
        "« {action} » n'est pas possible maintenant : annoncez, gardez (brasseur) ou passez",
    "'{action}' is not possible now: call a partner card or go alone":
        "« {action} » n'est pas possible maintenant : appelez une carte partenaire ou jouez seul",
    "'{action}' is not possible now: discard {count} cards":
        "« {action} » n'est pas possible maintenant : écartez {count} cartes",
    "'{action}' is not possible now: exchange a card for the upcard, or pass to keep your hand":
        "« {action} » n'est pas possible maintenant : échangez une carte contre la retourne, ou passez "
        "pour garder votre main",
    "'{action}' is not possible now: it is time to play a card":
        "« {action} » n'est pas possible maintenant : c'est le moment de jouer une carte",
    "'{action}' is not possible now: name a trump suit or pass":
        "« {action} » n'est pas possible maintenant : nommez une couleur d'atout ou passez",
    "'{action}' is not possible now: order the upcard's suit up or pass":
        "« {action} » n'est pas possible maintenant : commandez la couleur de la retourne ou passez",
    "'{action}' is not possible now: the taker leads a card (with no_trump if he declares it)":
        "« {action} » n'est pas possible maintenant : le preneur entame une carte (avec no_trump s'il "
        "annonce sans-atout)",
    # --- making a match: game, options, seeds, deal (ALL-1, ALL-3) -----------------------------------------
    "unknown game {game!r}; known games: {known}": "jeu inconnu {game!r} ; jeux connus : {known}",
    "unknown option(s) {unknown} for {game}; known: {known}":
        "option(s) inconnue(s) {unknown} pour {game} ; connues : {known}",
    "option {name} must be one of {allowed}, got {value!r}":
        "l'option {name} doit valoir l'un de {allowed}, reçu {value!r}",
    "a match key must be 16 to 64 bytes": "une clé de partie fait de 16 à 64 octets",
    "seed must be a whole number, got {seed!r}": "la graine doit être un nombre entier, reçu {seed!r}",
    "client_seeds must hold one string per seat ({players})":
        "client_seeds doit contenir une chaîne par siège ({players})",
    "explicit deal: must be an object with dealer, hands and kitty":
        "donne explicite : doit être un objet avec dealer, hands et kitty",
    "explicit deal: dealer must be a seat 0..{last}":
        "donne explicite : dealer doit être un siège de 0 à {last}",
    "explicit deal: hands must be a list of {players} hands":
        "donne explicite : hands doit être une liste de {players} mains",
    "explicit deal: kitty must list {count} cards": "donne explicite : kitty doit énumérer {count} cartes",
    "explicit deal: each hand is a list of card codes":
        "donne explicite : chaque main est une liste de codes de cartes",
    "explicit deal: {value!r} is not a card code": "donne explicite : {value!r} n'est pas un code de carte",
    "explicit deal: each hand must hold {count} cards":
        "donne explicite : chaque main doit tenir {count} cartes",
    "explicit deal: the hands and kitty must hold each of the {count} cards of the deck exactly once "
    "({deck_rule})":
        "donne explicite : les mains et la mise doivent tenir chacune des {count} cartes du paquet "
        "exactement une fois ({deck_rule})",
    # --- bidding ---------------------------------------------------------------------------------------
    "a bid is {low} to 10 tricks, not {tricks}": "une annonce va de {low} à 10 levées, pas {tricks}",
    "a bid must be higher than the highest bid so far (more tricks, or as many in a higher suit: S < C < D"
    " < H < NT)":
        "une annonce doit dépasser la plus haute annonce jusqu'ici (plus de levées, ou autant dans une "
        "couleur plus haute : S < C < D < H < NT)",
    "a bid is 70 to 100 points in steps of 5, not {points}":
        "une annonce va de 70 à 100 points par pas de 5, pas {points}",
    "a bid must be higher than {high_bid}": "une annonce doit dépasser {high_bid}",
    "a team below zero (in the box) may not bid 100":
        "une équipe sous zéro (dans la boîte) ne peut pas annoncer 100",
    "a team below zero (in the box) may not keep a bid of 100":
        "une équipe sous zéro (dans la boîte) ne peut pas garder une annonce de 100",
    "only the dealer may keep a bid": "seul le brasseur peut garder une annonce",
    "nobody has bid: there is nothing to keep": "personne n'a annoncé : il n'y a rien à garder",
    "the dealer may only pass or keep the highest bid, not raise it":
        "le brasseur peut seulement passer ou garder la plus haute annonce, pas la dépasser",
    "with this table's rules the dealer may not open when all passed":
        "selon les règles de cette table, le brasseur ne peut pas ouvrir quand tous ont passé",
    # --- euchre: upcard, trump, partner ---------------------------------------------------------------------
    "{card} is not in your hand; exchange one of your own cards for the upcard":
        "{card} n'est pas dans votre main ; échangez une de vos propres cartes contre la retourne",
    "the turned-down upcard's suit may not be trump this hand":
        "la couleur de la retourne refusée ne peut pas être atout pour cette donne",
    "the four others passed: the dealer must name a suit (stick the dealer)":
        "les quatre autres ont passé : le brasseur doit nommer une couleur (le brasseur est coincé)",
    "{card} is not in the euchre deck (A to 8)": "{card} n'est pas dans le paquet de l'euchre (de l'as au 8)",
    "you hold {card}: call a card that is not in your hand":
        "vous tenez {card} : appelez une carte qui n'est pas dans votre main",
    # --- discarding and playing (ALL-4) ------------------------------------------------------------
    "discard exactly {count} cards, not {given}": "écartez exactement {count} cartes, pas {given}",
    "you can only discard cards in your hand; you do not hold {missing}":
        "vous ne pouvez écarter que des cartes de votre main ; vous ne tenez pas {missing}",
    "'no_trump' is only for Le Rough's taker on the first lead":
        "« no_trump » est réservé au preneur du Rough, à la première entame",
    "{card} is not in your hand": "{card} n'est pas dans votre main",
    "you must follow suit: you hold {cards}": "vous devez fournir : vous tenez {cards}",
}  # fmt: skip
