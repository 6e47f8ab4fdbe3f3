"""Factories for real users, players and API tokens, and ledger legs as tests name them."""

from decimal import Decimal

import factory
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token

from club import services
from club.models import Account, Player
from club.parties import CLUB
from club.services import LegSpec

PASSWORD = "correct-horse-battery"


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"player{n}")
    password = factory.PostGenerationMethodCall("set_password", PASSWORD)

    @factory.post_generation
    def save_password(obj, create, extracted, **kwargs):
        if create:
            obj.save()


class PlayerFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Player

    user = factory.SubFactory(UserFactory)
    display_name = factory.LazyAttribute(lambda p: p.user.username.title())


def token_for(user) -> str:
    return Token.objects.get_or_create(user=user)[0].key


def leg(owner: Account | Player | str, amount: Decimal) -> LegSpec:
    """A leg for ``ledger_post`` on an account, a player's account, the club's cash
    (``"club"``) or another club account by kind (``"fees"``, ``"prize_pool"``)."""
    if isinstance(owner, Account):
        account = owner
    elif isinstance(owner, Player) or owner == CLUB:
        account = services.party_account_open(party=owner)
    else:
        account = services.club_account_open(kind=Account.Kind(owner))
    return LegSpec(account=account, amount=amount)
