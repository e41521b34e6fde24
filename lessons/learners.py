"""Who is learning, from a request: the signed-in user, or an anonymous key kept in the session."""
import secrets

from django.http import HttpRequest

from .services import Learner

SESSION_KEY = "learner_key"


def learner_from_request(request: HttpRequest) -> Learner:
    """The current learner; an anonymous visitor gets a key that survives login (sessions keep data on cycle_key)."""
    key = request.session.get(SESSION_KEY)
    if not key:
        key = secrets.token_hex(16)
        request.session[SESSION_KEY] = key
    user = request.user if request.user.is_authenticated else None
    return Learner(user=user, learner_key=key)
