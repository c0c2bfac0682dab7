"""Does not parse: the registry must say where."""


class Bot:
    def act(self, observation)
        return observation["legal_actions"][0]
