"""Sentences said to people, kept as an English template and its values until they are answered.

A raise site writes ``Text("There is no game {gid!r} (it may have expired).", gid=gid)``: the
English template is the key of its translations (``service.base.french``), so the English text reads
where it is raised, and the sentence is rendered in the request's language (``service.base.languages``)
only when the answer is written. A value may itself be a :class:`Text` (a phrase the sentence
quotes), rendered in the same language. Text quoted from elsewhere (a JSON decoder's or GraphQL
validator's message) is :meth:`Text.verbatim`: the same in every language, and said so by the
sentence around it.

A template with values is a ``str.format`` template (literal braces doubled); one without values is
plain text, never formatted, as ``engine.IllegalAction`` does with its templates.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from string import Formatter
from types import MappingProxyType

from service.base import languages
from service.base.french import FRENCH

VERBATIM = "(verbatim)"
"""The key of a quoted text: no translation, the text itself in every language."""

TRANSLATIONS: Mapping[str, Mapping[str, str]] = MappingProxyType({languages.FRENCH: FRENCH})
"""Language -> (key -> template in that language); English is the templates themselves."""


@dataclass(frozen=True, init=False)
class Text:
    """An English ``template``, its ``params``, and the ``key`` of its translations (the template
    itself unless it is quoted text or a translation chosen by a code, as a validator's message is)."""

    template: str
    params: Mapping[str, object]
    key: str

    def __init__(self, template: str, /, **params: object) -> None:
        object.__setattr__(self, "template", template)
        object.__setattr__(self, "params", MappingProxyType(params))
        object.__setattr__(self, "key", template)

    @classmethod
    def keyed(cls, key: str, english: str, params: Mapping[str, object]) -> Text:
        """A sentence said as ``english`` (ready-made, never formatted) whose translations are found
        under ``key`` and filled from ``params`` (a pydantic message, translated by its error type)."""
        escaped = english.replace("{", "{{").replace("}", "}}") if params else english
        text = cls(escaped, **params)
        object.__setattr__(text, "key", key)
        return text

    @classmethod
    def verbatim(cls, quoted: str) -> Text:
        """Text from outside this service, shown as it is in every language."""
        return cls.keyed(VERBATIM, quoted, {})

    def render(self, language: str | None = None) -> str:
        """The sentence in ``language`` (the request's when None); English where no translation is
        known (tests/service/test_errors_catalogue.py fails on any missing one)."""
        chosen = language or languages.language.get()
        template = self.template
        if chosen != languages.ENGLISH and self.key != VERBATIM:
            template = TRANSLATIONS.get(chosen, {}).get(self.key, template)
        if not self.params:
            return template
        return template.format(
            **{
                name: value.render(chosen) if isinstance(value, Text) else value
                for name, value in self.params.items()
            }
        )

    def __str__(self) -> str:
        return self.render(languages.ENGLISH)


def template_fields(template: str) -> set[str]:
    """The names of the fields of a ``str.format`` template ("{gid!r}" names ``gid``)."""
    return {field.split(".")[0].split("[")[0] for _, field, _, _ in Formatter().parse(template) if field}
