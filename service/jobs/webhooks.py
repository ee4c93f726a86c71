"""Shim: the webhook delivery job under its previous path ``service.jobs.webhooks`` (see
``service/jobs/__init__.py``; remove after 2027-06-01, once no release that enqueues this path can be
running)."""

from workers.jobs.webhooks import deliver

__all__ = ["deliver"]
