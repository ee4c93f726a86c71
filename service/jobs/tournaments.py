"""Shim: the tournament check under its previous path ``service.jobs.tournaments`` (see
``service/jobs/__init__.py``; remove after 2027-06-01, once no release that enqueues this path can be
running)."""

from workers.jobs.tournaments import check_tournament

__all__ = ["check_tournament"]
