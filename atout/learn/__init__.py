"""Learning on Atout's games: a fixed action space per game, observation vectors and legal-action
masks from a seat's view (numpy), and the games for OpenSpiel, PettingZoo and Gymnasium.

Optional extras: ``pip install 'atout[learn]'`` (numpy, Gymnasium, PettingZoo) and
``'atout[openspiel]'``. The service never imports this package. Modules:

- ``atout.learn.spaces``: :func:`action_space` (ids <-> the engine/API actions; a discard as single-card
  picks, :func:`discard_action`), no numpy;
- ``atout.learn.encoding``: :func:`observation`, :func:`legal_mask`, :func:`encode`, :func:`choose`,
  :func:`describe` (every field of the vector);
- ``atout.learn.table``: ``Table``, an engine match played one action id at a time;
- ``atout.learn.spiel``: the OpenSpiel games ``python_atout_five_hundred``, ``python_atout_rough``,
  ``python_atout_euchre5`` (imports pyspiel);
- ``atout.learn.envs``: PettingZoo AEC environments; ``atout.learn.single``: the Gymnasium wrapper;
- ``atout.learn.train``: a linear softmax policy trained by REINFORCE with masks (numpy only).
"""

from atout.learn.encoding import choose, describe, encode, legal_mask, observation
from atout.learn.spaces import GAMES, action_space, discard_action

__all__ = [
    "GAMES",
    "action_space",
    "choose",
    "describe",
    "discard_action",
    "encode",
    "legal_mask",
    "observation",
]
