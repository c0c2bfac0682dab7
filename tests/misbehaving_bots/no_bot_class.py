"""Defines no Bot class: the registry must say so."""


def act(observation):
    return observation["legal_actions"][0]
