"""French of the service's own sentences: problem details, the phrases they quote, stream notices."""

from __future__ import annotations

DETAILS: dict[str, str] = {
    # --- the request: body, headers, query parameters ---------------------------------------------
    "The body must be a JSON object: {error}.": "Le corps doit être un objet JSON : {error}.",
    "The JSON is nested more than {depth} levels deep; send a flatter body.":
        "Le JSON est imbriqué sur plus de {depth} niveaux ; envoyez un corps plus plat.",
    "body: an integer has {digits} digits; at most {most} are accepted.":
        "body : un entier a {digits} chiffres ; {most} au plus sont acceptés.",
    "The body holds a lone UTF-16 surrogate (an escape \\uD800-\\uDFFF without its pair): send text as valid"
    " Unicode.":
        "Le corps contient un demi-codet UTF-16 isolé (un échappement \\uD800-\\uDFFF sans sa paire) : "
        "envoyez du texte en Unicode valide.",
    "Send the body as JSON with `Content-Type: application/json` (got {shown}).":
        "Envoyez le corps en JSON avec `Content-Type: application/json` (reçu : {shown}).",
    "The request body is larger than {limit} bytes; send a smaller one.":
        "Le corps de la requête dépasse {limit} octets ; envoyez-en un plus petit.",
    "The request body was not all sent within {seconds:g} seconds.":
        "Le corps de la requête n'a pas été envoyé en entier en {seconds:g} secondes.",
    "The request header was not sent within {seconds:g} seconds.":
        "L'en-tête de la requête n'a pas été envoyé en {seconds:g} secondes.",
    "The request line and header are larger than {limit} bytes; send less.":
        "La ligne de requête et l'en-tête dépassent {limit} octets ; envoyez-en moins.",
    "Query parameter {name} must be a whole number from {low} to {high}.":
        "Le paramètre de requête {name} doit être un nombre entier de {low} à {high}.",
    "Idempotency-Key must be 1 to 200 characters.": "Idempotency-Key doit compter de 1 à 200 caractères.",
    "{where}: {message}": "{where} : {message}",
    "{field}: {message}": "{field} : {message}",
    "Nothing at {path}; the API lives under /v1 and /graphql.":
        "Rien à l'adresse {path} ; l'API se trouve sous /v1 et /graphql.",
    "{method} is not allowed on {path}.": "{method} n'est pas autorisé sur {path}.",
    "{name} must be an event id such as 1733140000000-0.":
        "{name} doit être un identifiant d'événement comme 1733140000000-0.",
    # --- tokens and seats ---------------------------------------------------------------------------
    "Send the token as `Authorization: Bearer <token>`.":
        "Envoyez le jeton ainsi : `Authorization: Bearer <token>`.",
    "Send your seat token as `Authorization: Bearer <token>` (from the join).":
        "Envoyez le jeton de votre siège ainsi : `Authorization: Bearer <token>` (reçu en rejoignant la "
        "partie).",
    "Send the bot's API key as `Authorization: Bearer <key>`.":
        "Envoyez la clé d'API du bot ainsi : `Authorization: Bearer <key>`.",
    "Send the administrator token as `Authorization: Bearer <token>`.":
        "Envoyez le jeton d'administrateur ainsi : `Authorization: Bearer <token>`.",
    "The administrator token acts in no seat: a seat token, a player's token or a bot's key does.":
        "Le jeton d'administrateur n'agit dans aucun siège : un jeton de siège, un jeton de joueur ou la clé "
        "d'un bot, oui.",
    "This token does not hold a seat in game {gid}.": "Ce jeton ne tient aucun siège dans la partie {gid}.",
    "This token no longer holds a seat in this game.": "Ce jeton ne tient plus de siège dans cette partie.",
    "This token no longer holds seat {seat}: the seat was given up.":
        "Ce jeton ne tient plus le siège {seat} : le siège a été abandonné.",
    "Your token is for seat {seat}, not seat {claimed}.":
        "Votre jeton est celui du siège {seat}, pas du siège {claimed}.",
    "Your account holds no seat in game {gid}: join it first.":
        "Votre compte n'a pas de siège dans la partie {gid} : rejoignez-la d'abord.",
    "This operation needs the administrator token.": "Cette opération demande le jeton d'administrateur.",
    "This token is not a credential this operation takes ({accepted}).":
        "Ce jeton n'est pas un justificatif que prend cette opération ({accepted}).",
    "This operation takes {accepted}, not a `{kind}`.": "Cette opération prend {accepted}, pas un `{kind}`.",
    "Seat {seat}'s view needs that seat's token.": "La vue du siège {seat} demande le jeton de ce siège.",
    "This is not a bot API key (register one with POST /v1/bots).":
        "Ce n'est pas une clé d'API de bot (créez-en une avec POST /v1/bots).",
    "Deleting a bot account needs the administrator token.":
        "Supprimer un compte de bot demande le jeton d'administrateur.",
    "/metrics answers the administrator token only here.":
        "Ici, /metrics ne répond qu'au jeton d'administrateur.",
    "Creating a game with {chosen} needs the administrator token: whoever knows the seed knows every hand."
    " Omit `seed` and `deal` (add your own `client_seed` when you join).":
        "Créer une partie avec {chosen} demande le jeton d'administrateur : qui connaît la graine connaît "
        "toutes les mains. Omettez `seed` et `deal` (ajoutez votre propre `client_seed` en rejoignant).",
    "an explicit deal": "une donne explicite",
    "a chosen seed": "une graine choisie",
    "This game is private: send the invite code its creator got.":
        "Cette partie est privée : envoyez le code d'invitation reçu par son créateur.",
    # --- a player's JWT from their app (service/identity/) ------------------------------------------
    "The bearer token is longer than {most} characters.": "Le jeton dépasse {most} caractères.",
    "The bearer token is not a JWT: three base64url parts, the first a JSON header naming its alg.":
        "Le jeton n'est pas un JWT : trois parties en base64url, la première un en-tête JSON qui nomme son "
        "alg.",
    "The JWT's claims are not a JSON object.":
        "Les revendications (claims) du JWT ne sont pas un objet JSON.",
    "The JWT's kid is not a string.": "Le kid du JWT n'est pas une chaîne.",
    "The JWT does not name its issuer (iss).": "Le JWT ne nomme pas son émetteur (iss).",
    "This server does not trust JWTs from {issuer!r}.":
        "Ce serveur ne fait pas confiance aux JWT de {issuer!r}.",
    "JWTs from {issuer} must be signed with {allowed}, not {alg!r}.":
        "Les JWT de {issuer} doivent être signés avec {allowed}, pas {alg!r}.",
    "{issuer} publishes no {alg} key.": "{issuer} ne publie aucune clé {alg}.",
    "{issuer} publishes no {alg} key with the id {kid!r}.":
        "{issuer} ne publie aucune clé {alg} d'identifiant {kid!r}.",
    "The JWT does not decode as a signed JWT (JWS compact form).":
        "Le JWT ne se décode pas comme un JWT signé (forme compacte JWS).",
    "The JWT's signature does not verify with the keys of {issuer}.":
        "La signature du JWT ne se vérifie avec aucune clé de {issuer}.",
    "The JWT lacks {claims}, which this server requires.": "Il manque au JWT {claims}, que ce serveur exige.",
    "The JWT has expired; get a fresh one from your app's sign-in.":
        "Le JWT a expiré ; obtenez-en un nouveau en vous reconnectant dans votre application.",
    "The JWT's subject (sub) is longer than {most} characters.":
        "Le sujet (sub) du JWT dépasse {most} caractères.",
    "The JWT is not meant for this server: its aud must name {audience!r}.":
        "Le JWT n'est pas destiné à ce serveur : son aud doit nommer {audience!r}.",
    "The JWT is not valid yet: its {claim} is more than {leeway} s ahead of this server's clock.":
        "Le JWT n'est pas encore valable : son {claim} a plus de {leeway} s d'avance sur l'horloge de ce "
        "serveur.",
    "The JWT's {claim} claim is not of the right form.":
        "La revendication {claim} du JWT n'a pas la bonne forme.",
    "The keys of {issuer} cannot be fetched right now; retry after the delay in Retry-After.":
        "Les clés de {issuer} ne peuvent pas être récupérées pour l'instant ; réessayez après le délai de "
        "Retry-After.",
    # --- games ---------------------------------------------------------------------------------------
    "There is no game {gid!r} (it may have expired).":
        "Il n'y a pas de partie {gid!r} (elle a peut-être expiré).",
    "There is no bot account {bid!r} (it may have expired).":
        "Il n'y a pas de compte de bot {bid!r} (il a peut-être expiré).",
    "{game} is played by {players}; give at most one seat entry each, not {given}.":
        "{game} se joue à {players} ; donnez au plus une entrée de siège par joueur, pas {given}.",
    "Seats of this game are 0..{last}.": "Les sièges de cette partie vont de 0 à {last}.",
    "Every seat of this game is taken.": "Tous les sièges de cette partie sont pris.",
    "Seat {seat} is taken; join another or omit `seat`.":
        "Le siège {seat} est pris ; rejoignez-en un autre ou omettez `seat`.",
    "Seat {seat} of the rematch is already taken.": "Le siège {seat} de la revanche est déjà pris.",
    "The seats of this game kept changing while you joined; join again.":
        "Les sièges de cette partie changeaient sans cesse pendant que vous la rejoigniez ; rejoignez-la à"
        " nouveau.",
    "The game starts when every seat is taken.": "La partie commence quand tous les sièges sont pris.",
    "The match is over; see /log for the replay.": "La partie est terminée ; voyez /log pour la rejouer.",
    "The match is over; there is no seat to give up.":
        "La partie est terminée ; il n'y a plus de siège à abandonner.",
    "A rematch is offered once the match is over.": "Une revanche est proposée une fois la partie terminée.",
    "The rematch has expired.": "La revanche a expiré.",
    "The replay log (with the seed) is published when the match is over.":
        "Le journal de la partie (avec la graine) est publié quand la partie est terminée.",
    "The game is at version {current}: reload the view and decide again.":
        "La partie en est à la version {current} : rechargez la vue et décidez à nouveau.",
    "This Idempotency-Key was already used with another action; use a fresh key per action.":
        "Cette Idempotency-Key a déjà servi pour une autre action ; utilisez une clé neuve par action.",
    # --- capacity and limits ---------------------------------------------------------------------------
    "This server holds {count} connections; retry in a moment.":
        "Ce serveur tient {count} connexions ; réessayez dans un instant.",
    "Your address holds {held} connections to this server (at most {most}); reuse them or close some.":
        "Votre adresse tient {held} connexions à ce serveur ({most} au plus) ; réutilisez-les ou fermez-en.",
    "This address holds {held} WebSockets to this server (at most {most}); run several subscriptions on "
    "one socket.":
        "Cette adresse tient {held} WebSockets à ce serveur ({most} au plus) ; faites passer plusieurs "
        "abonnements par une seule.",
    "This server holds its maximum of {most} open streams; retry later.":
        "Ce serveur tient son maximum de {most} flux ouverts ; réessayez plus tard.",
    "You have {count} streams open, the most allowed; close one (a bot account has one stream for all its "
    "games: GET /v1/bots/me/stream).":
        "Vous avez {count} flux ouverts, le maximum permis ; fermez-en un (un compte de bot a un seul flux"
        " pour toutes ses parties : GET /v1/bots/me/stream).",
    "You already have {count} unfinished games, the most one creator may have; finish one (an abandoned "
    "game expires on its own) before creating another.":
        "Vous avez déjà {count} parties non terminées, le maximum pour un créateur ; terminez-en une (une "
        "partie abandonnée expire d'elle-même) avant d'en créer une autre.",
    "The server holds its most unfinished games ({cap}); retry once some have finished.":
        "Le serveur tient son maximum de parties non terminées ({cap}) ; réessayez quand certaines seront "
        "finies.",
    "Too many {category} requests from {whose} (at most {limit}); retry in {wait} s.":
        "Trop de requêtes « {category} » venant de {whose} ({limit} au plus) ; réessayez dans {wait} s.",
    "create game": "créer une partie",
    "join": "rejoindre",
    "act": "jouer",
    "This player token is not valid: the player was deleted or expired, or the token was mistyped.":
        "Ce jeton de joueur n'est pas valide : le joueur a été supprimé ou a expiré, ou le jeton est mal "
        "recopié.",
    "Send a player token (from POST /v1/players) or a token of your app's identity provider as "
    "`Authorization: Bearer <token>`.":
        "Envoyez un jeton de joueur (de POST /v1/players) ou un jeton du fournisseur d'identité de votre "
        "application ainsi : `Authorization: Bearer <token>`.",
    "`identity_token` is not a token of a trusted identity provider.":
        "`identity_token` n'est pas un jeton d'un fournisseur d'identité de confiance.",
    "This player is linked to an identity already.": "Ce joueur est déjà lié à une identité.",
    "This identity already has a player of its own.": "Cette identité a déjà son propre joueur.",
    "You hold seat {seat} of this game already: one player, one seat.":
        "Vous avez déjà le siège {seat} de cette partie : un joueur, un siège.",
    "You are seated in {cap} games not over yet: finish or leave one first.":
        "Vous êtes assis à {cap} parties pas encore finies : finissez-en ou quittez-en une d'abord.",
    "Invitations are to tables still waiting for players.":
        "On invite seulement à une table qui attend encore des joueurs.",
    "There is no player {pid!r}.": "Il n'y a pas de joueur {pid!r}.",
    "That player holds a seat of this game already.": "Ce joueur a déjà un siège à cette table.",
    "That player holds {cap} open invitations already; try again later.":
        "Ce joueur a déjà {cap} invitations ouvertes ; réessayez plus tard.",
    "That player holds {cap} open invitations of yours already; wait for an answer.":
        "Ce joueur a déjà {cap} invitations ouvertes de votre part ; attendez une réponse.",
    "You sent {cap} invitations this hour; try again later.":
        "Vous avez envoyé {cap} invitations cette heure-ci ; réessayez plus tard.",
    "Only a seat joined with a player's credential invites: join with your player token.":
        "Seul un siège pris avec l'identifiant d'un joueur peut inviter : rejoignez avec votre jeton de "
        "joueur.",
    "That player does not take invitations from you.": "Ce joueur n'accepte pas vos invitations.",
    "You block {cap} players already: unblock one, or refuse everyone's invitations.":
        "Vous bloquez déjà {cap} joueurs : débloquez-en un, ou refusez les invitations de tous.",
    "You hold no open invitation {iid!r} (it may have expired or been answered).":
        "Vous n'avez pas d'invitation ouverte {iid!r} (elle a peut-être expiré ou reçu une réponse).",
    "status is one of waiting, active, finished.": "status vaut waiting, active ou finished.",
    "register bot": "inscrire un bot",
    "create player": "créer un joueur",
    "open stream": "ouvrir un flux",
    "this address": "cette adresse",
    "this token": "ce jeton",
    "{amount} per {multiples} {unit}": "{amount} par {multiples} {unit}",
    "second": "seconde",
    "minute": "minute",
    "hour": "heure",
    "day": "jour",
    "month": "mois",
    "year": "an",
    # --- the game store ---------------------------------------------------------------------------------
    "The game store does not answer.": "Le stockage des parties ne répond pas.",
    "The game store is full and accepts no new data for now; finish or leave a game, or retry later.":
        "Le stockage des parties est plein et n'accepte plus de données pour l'instant ; terminez ou "
        "quittez une partie, ou réessayez plus tard.",
    "Every connection to the game store is busy; retry shortly.":
        "Toutes les connexions au stockage des parties sont occupées ; réessayez sous peu.",
    "The game store cannot be reached right now; retry after the delay in Retry-After (a move with the "
    "same Idempotency-Key, so it is applied at most once).":
        "Le stockage des parties est injoignable pour l'instant ; réessayez après le délai de Retry-After "
        "(un coup avec la même Idempotency-Key, pour qu'il soit appliqué au plus une fois).",
    "Something went wrong on our side; the error was logged.":
        "Quelque chose s'est mal passé de notre côté ; l'erreur a été journalisée.",
    # --- streams --------------------------------------------------------------------------------------
    "Events after {after} are no longer kept (a match keeps only its last events, and this one is "
    "over): read GET /v1/games/{gid}/view for your seat's final view and GET /v1/games/{gid}/log "
    "for the whole match (the replay log).":
        "Les événements après {after} ne sont plus conservés (une partie ne garde que ses derniers "
        "événements, et celle-ci est terminée) : lisez GET /v1/games/{gid}/view pour la vue finale de "
        "votre siège et GET /v1/games/{gid}/log pour toute la partie (le journal de la partie).",
    "Events after {after} are no longer kept (a running match keeps only its last events): read GET "
    "/v1/games/{gid}/view (your seat's whole view), then follow with Last-Event-ID {last}, skipping events"
    " whose version the view already has.":
        "Les événements après {after} ne sont plus conservés (une partie en cours ne garde que ses "
        "derniers événements) : lisez GET /v1/games/{gid}/view (toute la vue de votre siège), puis suivez "
        "avec Last-Event-ID {last} en sautant les événements dont la vue a déjà la version.",
    "Event {after} is not in game {gid}'s stream (the store was restored from a backup taken before it): "
    "read GET /v1/games/{gid}/view for your seat's final view and GET /v1/games/{gid}/log for the whole "
    "match (the replay log).":
        "L'événement {after} n'est pas dans le flux de la partie {gid} (le stockage a été restauré depuis "
        "une sauvegarde antérieure) : lisez GET /v1/games/{gid}/view pour la vue finale de votre siège et "
        "GET /v1/games/{gid}/log pour toute la partie (le journal de la partie).",
    "Event {after} is not in game {gid}'s stream (the store was restored from a backup taken before it, "
    "and the moves after the backup were lost): read GET /v1/games/{gid}/view (your seat's whole view), "
    "then follow with Last-Event-ID {last}.":
        "L'événement {after} n'est pas dans le flux de la partie {gid} (le stockage a été restauré depuis "
        "une sauvegarde antérieure, et les coups joués après elle sont perdus) : lisez GET "
        "/v1/games/{gid}/view (toute la vue de votre siège), puis suivez avec Last-Event-ID {last}.",
    "Game {gid} is over and its event stream was compacted away: GET /v1/games/{gid} for its final state "
    "and GET /v1/games/{gid}/log for the whole match (the replay log).":
        "La partie {gid} est terminée et son flux d'événements a été compacté : GET /v1/games/{gid} pour "
        "son état final et GET /v1/games/{gid}/log pour toute la partie (le journal).",
    "This server is shutting down: reconnect with your Last-Event-ID after retry_after seconds (another "
    "replica serves you), and the stream resumes without a gap.":
        "Ce serveur s'arrête : reconnectez-vous avec votre Last-Event-ID après retry_after secondes (une "
        "autre réplique vous sert), et le flux reprend sans trou.",
    "This stream fell too far behind and was closed; reconnect with Last-Event-ID {last_id} to resume "
    "without a gap.":
        "Ce flux a pris trop de retard et a été fermé ; reconnectez-vous avec Last-Event-ID {last_id} pour"
        " reprendre sans trou.",
    "This server is shutting down; subscribe again with after: {last_id!r} (another replica resumes "
    "without a gap).":
        "Ce serveur s'arrête ; abonnez-vous à nouveau avec after: {last_id!r} (une autre réplique reprend "
        "sans trou).",
    "This subscription fell too far behind and was ended; subscribe again with after: {last_id!r} to "
    "resume without a gap.":
        "Cet abonnement a pris trop de retard et a été terminé ; abonnez-vous à nouveau avec after: "
        "{last_id!r} pour reprendre sans trou.",
    # --- GraphQL ----------------------------------------------------------------------------------------
    "GraphQL answers GET (queries only) and POST.":
        "GraphQL répond à GET (requêtes de lecture seulement) et à POST.",
    "Nothing here: send a GraphQL request with a `query`.":
        "Rien ici : envoyez une requête GraphQL avec une `query`.",
    "Send the GraphQL request as JSON with `Content-Type: application/json`.":
        "Envoyez la requête GraphQL en JSON avec `Content-Type: application/json`.",
    'The body must be a JSON object: {"query": "{ rules { id } }"}.':
        'Le corps doit être un objet JSON : {"query": "{ rules { id } }"}.',
    'The body must be a JSON object such as {"query": "{ rules { id } }"}.':
        'Le corps doit être un objet JSON comme {"query": "{ rules { id } }"}.',
    "{operation} must be sent with POST: GET runs queries only.":
        "{operation} doit être envoyée avec POST : GET n'exécute que des requêtes de lecture.",
    "Send one GraphQL request per HTTP request: a JSON array (a batch) is not accepted.":
        "Envoyez une requête GraphQL par requête HTTP : un tableau JSON (un lot) n'est pas accepté.",
    'The request has no `query`: send {"query": "…"}.':
        "La requête n'a pas de `query` : envoyez {\"query\": \"…\"}.",
    "{message} (line {line}, column {column})": "{message} (ligne {line}, colonne {column})",
    "The fragments spread each other in a cycle: {cycle}.":
        "Les fragments s'incluent les uns les autres en cycle : {cycle}.",
    "Validation gave up on this document: it compares the same fields too many times (a field repeated, or"
    " fragments selecting the same fields spread side by side); select each field once.":
        "La validation a renoncé à ce document : il compare trop de fois les mêmes champs (un champ "
        "répété, ou des fragments choisissant les mêmes champs inclus côte à côte) ; choisissez chaque "
        "champ une fois.",
    "Introspection ({field}) is switched off on this server (ATOUT_GRAPHQL_INTROSPECTION=false); the "
    "schema is published as schema.graphql.":
        "L'introspection ({field}) est désactivée sur ce serveur (ATOUT_GRAPHQL_INTROSPECTION=false) ; le "
        "schéma est publié dans schema.graphql.",
    "{what}, over the limit of {limit} ({setting}): {advice}.":
        "{what}, au-delà de la limite de {limit} ({setting}) : {advice}.",
    "The query is {size} bytes": "La requête fait {size} octets",
    "The query has more than {count} comments": "La requête a plus de {count} commentaires",
    "The query has more than {count} tokens": "La requête a plus de {count} lexèmes",
    "The query is nested too deeply to parse": "La requête est trop imbriquée pour être analysée",
    "The document has {count} operations": "Le document a {count} opérations",
    "The document has {count} fragments": "Le document a {count} fragments",
    "The document has more than {count} selections": "Le document a plus de {count} sélections",
    "The document has more than {count} fragment spreads":
        "Le document a plus de {count} inclusions de fragments",
    "The document has more than {count} aliases": "Le document a plus de {count} alias",
    "An argument value is nested more than {depth} levels deep":
        "Une valeur d'argument est imbriquée sur plus de {depth} niveaux",
    "The query": "La requête",
    "The fragment {name}": "Le fragment {name}",
    "{what}'s depth is {depth}": "{what} : profondeur {depth}",
    "{what} costs {shown} (each field 1, times the size of the lists around it)":
        "{what} coûte {shown} (chaque champ 1, fois la taille des listes qui l'entourent)",
    "more than {cap}": "plus de {cap}",
    "send a shorter document": "envoyez un document plus court",
    "nest fewer selections or values": "imbriquez moins de sélections ou de valeurs",
    "nest fewer selections": "imbriquez moins de sélections",
    "send one operation per request": "envoyez une opération par requête",
    "use fewer fragments": "utilisez moins de fragments",
    "select fewer fields": "choisissez moins de champs",
    "select fewer fields or ask for shorter lists with `limit`":
        "choisissez moins de champs ou demandez des listes plus courtes avec `limit`",
    "spread fewer fragments": "incluez moins de fragments",
    "use fewer aliases": "utilisez moins d'alias",
    "send flatter values": "envoyez des valeurs plus plates",
    # --- GraphQL arguments (the REST rules, said for GraphQL's names) ------------------------------
    "idempotencyKey must be 1 to 200 characters.": "idempotencyKey doit compter de 1 à 200 caractères.",
    "{field}: false names no action: send {field}: true":
        "{field}: false ne nomme aucune action : envoyez {field}: true",
    "cursor is not one this server gave: send the `next_cursor` of the previous page as it came, or "
    "none for the first page.":
        "ce cursor ne vient pas de ce serveur : renvoyez le `next_cursor` de la page précédente tel "
        "quel, ou aucun pour la première page.",
    "options.{named} are options of {other}, not of {game}: give options.{wanted}.":
        "options.{named} sont des options de {other}, pas de {game} : donnez options.{wanted}.",
    "Query parameter {name} must be true or false.":
        "Le paramètre de requête {name} doit valoir true ou false.",
    # --- webhooks (service/games/webhooks.py) -----------------------------------------------------------
    "Managing webhooks needs the administrator token.":
        "Gérer les webhooks demande le jeton d'administrateur.",
    "The host {host} does not resolve: register the URL once its DNS answers.":
        "L'hôte {host} ne se résout pas : enregistrez l'URL quand son DNS répondra.",
    "The host {host} resolves to {address}, which is not a public address: webhooks go to public addresses "
    "only.":
        "L'hôte {host} se résout en {address}, qui n'est pas une adresse publique : les webhooks ne vont "
        "qu'à des adresses publiques.",
    "{limit} webhook endpoints are registered, the most allowed: delete one first.":
        "{limit} points de terminaison de webhook sont enregistrés, le maximum permis : supprimez-en un "
        "d'abord.",
    "There is no webhook endpoint {wid!r}.": "Il n'y a pas de point de terminaison de webhook {wid!r}.",
    "There is no dead letter {dead_id!r}.": "Il n'y a pas de lettre morte {dead_id!r}.",
    # --- rated games and ladders (service/games/ratings.py) ---------------------------------------------
    "A rated game seats each built-in bot level at most once: one account, one seat.":
        "Une partie classée assoit chaque niveau de bot intégré une fois au plus : un compte, un siège.",
    "A rated game is dealt from a fresh key: omit `seed` and `deal`.":
        "Une partie classée est distribuée avec une clé neuve : omettez `seed` et `deal`.",
    "This game is rated: join with a player's credential or a bot account's API key, not "
    "anonymously.":
        "Cette partie est classée : rejoignez-la avec l'identifiant d'un joueur ou la clé d'API d'un "
        "compte de bot, pas anonymement.",
    "This server rates only players signed in with the app's identity provider: link your "
    "guest player to it (POST /v1/me/identity) or join an unrated game.":
        "Ce serveur ne classe que les joueurs connectés par le fournisseur d'identité de l'application : "
        "liez-y votre joueur invité (POST /v1/me/identity) ou rejoignez une partie non classée.",
    "{name} {value!r} is not an id this server gives (1 to 64 letters, digits, - or _).":
        "{name} {value!r} n'est pas un identifiant que ce serveur donne (1 à 64 lettres, chiffres, - ou _).",
    "There is no problem code {code!r}; docs/errors.md lists them all.":
        "Il n'y a pas de code de problème {code!r} ; docs/errors.md les liste tous.",
    "There is no game kind {game!r}; see GET /v1/rules.":
        "Il n'y a pas de jeu {game!r} ; voyez GET /v1/rules.",
    "board must be `people` or `bots`.": "board doit valoir `people` ou `bots`.",
    "{account!r} is not a rated account (player:<id>, bot:<id>, builtin:<level>).":
        "{account!r} n'est pas un compte classé (player:<id>, bot:<id>, builtin:<level>).",
    "{account} has no rating in {game} (no rated match yet, or the account is gone).":
        "{account} n'a pas de classement à {game} (aucune partie classée encore, ou le compte n'existe "
        "plus).",
    "{name} must be from {low} to {high}.": "{name} doit aller de {low} à {high}.",
    # --- tournaments (service/games/tournaments.py) ---------------------------------------------------
    "Send the administrator token or a bot's API key as `Authorization: Bearer`.":
        "Envoyez le jeton d'administrateur ou la clé d'API d'un bot en `Authorization: Bearer`.",
    "This tournament cannot be played: {reason}.": "Ce tournoi ne peut pas se jouer : {reason}.",
    "This tournament would play {total} games; this server plays at most {most}.":
        "Ce tournoi jouerait {total} parties ; ce serveur en joue {most} au plus.",
    "The bot account {bid} is entered twice.": "Le compte de bot {bid} est inscrit deux fois.",
    "Only the administrator or a bot account creates a tournament.":
        "Seuls l'administrateur ou un compte de bot créent un tournoi.",
    "This bot account already has {cap} tournaments running; wait for one to end.":
        "Ce compte de bot a déjà {cap} tournois en cours ; attendez que l'un d'eux se termine.",
    "There is no tournament {tid!r} (it may have expired).":
        "Il n'y a pas de tournoi {tid!r} (il a peut-être expiré).",
    "A round of this tournament starts {per_round} games at once, and at most {most} may run at once "
    "here: enter fewer entrants or deals.":
        "Une ronde de ce tournoi lance {per_round} parties à la fois, et {most} au plus peuvent se jouer à "
        "la fois ici : inscrivez moins de participants ou de donnes.",
    "The bot account {bid} is not yours: a bot account enters itself and built-in bots only; ask the "
    "administrator to organise a tournament with other accounts.":
        "Le compte de bot {bid} n'est pas le vôtre : un compte de bot s'inscrit lui-même et des bots "
        "intégrés seulement ; demandez à l'administrateur d'organiser un tournoi avec d'autres comptes.",
    "The server runs its most tournament games at once ({cap}); {wanted} more must wait until some "
    "have finished.":
        "Le serveur joue déjà le plus de parties de tournoi à la fois ({cap}) ; {wanted} de plus doivent "
        "attendre que certaines se terminent.",
    "These {wanted} games do not fit: you have {count} unfinished games and one creator may have {cap}; "
    "retry once enough of them have finished.":
        "Ces {wanted} parties ne tiennent pas : vous avez {count} parties non terminées et un créateur peut "
        "en avoir {cap} ; réessayez quand assez d'entre elles seront terminées.",
    # --- Play now: tickets and parties ---------------------------------------------------------------
    "This server does not seat built-in bots at rated tables.":
        "Ce serveur n'assoit pas de robots aux tables classées.",
    "You hold ticket {tid} for this game already: cancel it or wait.":
        "Vous avez déjà le billet {tid} pour ce jeu : annulez-le ou attendez.",
    "Too many players are waiting; try again shortly.": "Trop de joueurs attendent ; réessayez sous peu.",
    "Ticket {tid} is {status}: only a waiting ticket can be cancelled.":
        "Le billet {tid} est {status} : seul un billet en attente peut être annulé.",
    "There is no ticket {tid} of yours.": "Vous n'avez aucun billet {tid}.",
    "Play now needs your account: send its credential.":
        "Jouer maintenant demande votre compte : envoyez son identifiant.",
    "Play now needs your account: a player's credential or a bot's API key.":
        "Jouer maintenant demande votre compte : l'identifiant d'un joueur ou la clé d'API d'un robot.",
    "There is no party {pid} that you lead.": "Vous ne menez aucun groupe {pid}.",
    "Your party is for {kind}.": "Votre groupe est pour {kind}.",
    "There is no party {pid}.": "Il n'y a pas de groupe {pid}.",
    "That is not this party's invite code.": "Ce n'est pas le code d'invitation de ce groupe.",
    "This party has as many members as its game has seats.":
        "Ce groupe compte déjà autant de membres que son jeu a de places.",
    "There is no party {pid} of yours.": "Vous n'êtes membre d'aucun groupe {pid}.",
}  # fmt: skip
