"""French of pydantic's validation messages, keyed by error type (``pydantic:<type>``) and filled from
the error's context (pydantic's own message templates name the same fields), and of the phrases
that say why a display name was refused (``schema.games.unsafe_character``).

Only the types a request of this API can meet are here; any other is quoted in pydantic's English
(``service.api.problems.validation_message``)."""

from __future__ import annotations

VALIDATION_KEY = "pydantic:"

_BY_TYPE = {
    "missing": "Champ requis",
    "extra_forbidden": "Champ non permis",
    "json_invalid": "JSON invalide : {error}",
    "model_type": "Un objet est attendu ({class_name})",
    "model_attributes_type": "Un objet est attendu",
    "dict_type": "Un objet est attendu",
    "list_type": "Une liste est attendue",
    "string_type": "Une chaîne de caractères est attendue",
    "string_too_short": "La chaîne doit compter au moins {min_length} caractère(s)",
    "string_too_long": "La chaîne doit compter au plus {max_length} caractère(s)",
    "string_pattern_mismatch": "La chaîne doit suivre le motif « {pattern} »",
    "too_short": "Au moins {min_length} élément(s) attendu(s), pas {actual_length}",
    "too_long": "Au plus {max_length} élément(s) attendu(s), pas {actual_length}",
    "bool_type": "Un booléen est attendu",
    "bool_parsing": "Un booléen est attendu (valeur non reconnue)",
    "int_type": "Un nombre entier est attendu",
    "int_parsing": "Un nombre entier est attendu (chaîne non reconnue comme entier)",
    "int_from_float": "Un nombre entier est attendu, pas un nombre à virgule",
    "int_parsing_size": "Entier trop grand pour être lu",
    "float_type": "Un nombre est attendu",
    "float_parsing": "Un nombre est attendu (chaîne non reconnue comme nombre)",
    "greater_than": "La valeur doit être supérieure à {gt}",
    "greater_than_equal": "La valeur doit être supérieure ou égale à {ge}",
    "less_than": "La valeur doit être inférieure à {lt}",
    "less_than_equal": "La valeur doit être inférieure ou égale à {le}",
    "literal_error": "La valeur doit être {expected}",
    "enum": "La valeur doit être {expected}",
    "none_required": "La valeur doit être null",
    "union_tag_invalid": "Le type « {tag} » (lu dans {discriminator}) n'est pas l'un des types attendus : "
    "{expected_tags}",
    "union_tag_not_found": "Impossible de lire le type dans {discriminator}",
    "invalid_entrant": "Doit être `bot:random`, `bot:heuristic`, `bot:expert`, `bot:learned` ou "
    "`account:<bot_id>` (l'id d'un compte de bot)",
}

VALIDATION: dict[str, str] = {
    **{VALIDATION_KEY + kind: french for kind, french in _BY_TYPE.items()},
    # a display name refused (schema.games.unsafe_character, service.api.problems.unsafe_message)
    "must not contain {reason}": "ne doit pas contenir {reason}",
    "{kind} (U+{point}) at position {position}": "{kind} (U+{point}) à la position {position}",
    "a bidirectional control": "une commande bidirectionnelle",
    "a control character": "un caractère de commande",
    "an invisible format character": "un caractère de mise en forme invisible",
    "an unassigned, surrogate or private-use code point": (
        "un point de code non attribué, demi-codet ou à usage privé"
    ),
}
