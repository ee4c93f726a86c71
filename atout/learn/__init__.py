"""Learning on Atout's games: a fixed action space per game, observation vectors and legal-action
masks from a seat's view (numpy), and the games for OpenSpiel, PettingZoo and Gymnasium.

Optional extras: ``pip install 'atout[learn]'`` (numpy, Gymnasium, PettingZoo) and
``'atout[openspiel]'`` (OpenSpiel, numpy). The service never imports this package, and this file
imports nothing, so that each module below needs only its own extra:

- ``atout.learn.spaces``: ``action_space(game)`` (ids <-> the engine/API actions, a discard as
  single-card picks, ``discard_action``); the standard library only;
- ``atout.learn.encoding``: ``observation``, ``legal_mask``, ``encode``, ``choose``, ``describe`` (every
  field of the vector); numpy;
- ``atout.learn.table``: ``Table``, an engine match played one action id at a time;
- ``atout.learn.spiel``: the OpenSpiel games ``python_atout_five_hundred``, ``python_atout_rough``,
  ``python_atout_euchre5``, registered on import;
- ``atout.learn.envs``: PettingZoo AEC environments; ``atout.learn.single``: the Gymnasium
  single-seat environment (``atout/<game>-v0``);
- ``atout.learn.train``: a linear softmax policy trained by REINFORCE with masks, and its evaluation
  on duplicate deals (numpy only).
"""
