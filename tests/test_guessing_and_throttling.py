"""Guessing passwords and flooding the API are held back (web/guard.py, web/throttling.py,
docs/operations.md "Guessing and throttling"), with real users, passwords and tokens:
wrong passwords lock an account from one address, on the login page and the token
endpoint alike, the right password refused until the lock is over or staff lift it; a
user writing faster than any player gets a 429 that changed nothing."""

from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth import SESSION_KEY
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from rest_framework.authtoken.models import Token

from club.models import Transaction
from tests.factories import PASSWORD
from web.throttling import WriteRateThrottle

pytestmark = pytest.mark.django_db

LIMIT = settings.AXES_FAILURE_LIMIT
LOCK = settings.AXES_COOLOFF_TIME
TOKEN = "/api/auth/token/"
HOME = "10.1.1.1"
AWAY = "10.2.2.2"


@pytest.fixture
def clock(monkeypatch):
    """Moves the clock that the lock reads forward, instead of sleeping through it."""
    import axes.handlers.proxy

    real_now = timezone.now
    offset = timedelta(0)

    def now():
        return real_now() + offset

    monkeypatch.setattr(axes.handlers.proxy, "now", now)
    monkeypatch.setattr(timezone, "now", now)

    class Clock:
        def advance(self, by: timedelta) -> None:
            nonlocal offset
            offset += by

    return Clock()


def token_request(api, username, password, address=HOME):
    return api.post(
        TOKEN, {"username": username, "password": password}, format="json", REMOTE_ADDR=address
    )


def guess(api, username, times, address=HOME):
    """``times`` wrong passwords on the token endpoint: the statuses answered."""
    return [token_request(api, username, f"wrong-{n}", address).status_code for n in range(times)]


def assert_locked_json(response):
    assert response.status_code == 429
    assert response["Content-Type"] == "application/json"
    assert response.json()["error"] == "locked"
    assert response.json()["detail"]
    assert 0 < int(response["Retry-After"]) <= LOCK.total_seconds()


def test_wrong_passwords_on_the_token_endpoint_lock_the_account_there(api, make_player):
    alice = make_player("alice")
    assert guess(api, "alice", LIMIT) == [400] * (LIMIT - 1) + [429]
    response = token_request(api, "alice", PASSWORD)
    assert_locked_json(response)
    assert not Token.objects.filter(user=alice.user).exists()


def test_wrong_passwords_sent_while_locked_do_not_extend_the_lock(api, make_player, clock):
    make_player("alice")
    guess(api, "alice", LIMIT)
    clock.advance(LOCK - timedelta(minutes=1))
    guess(api, "alice", 20)
    assert int(token_request(api, "alice", PASSWORD)["Retry-After"]) <= 60
    clock.advance(timedelta(minutes=1, seconds=1))
    assert token_request(api, "alice", PASSWORD).status_code == 200


def test_the_lock_is_over_after_its_time(api, make_player, clock):
    make_player("alice")
    guess(api, "alice", LIMIT)
    clock.advance(LOCK - timedelta(seconds=5))
    assert_locked_json(token_request(api, "alice", PASSWORD))
    clock.advance(timedelta(seconds=6))
    response = token_request(api, "alice", PASSWORD)
    assert response.status_code == 200
    assert response.json()["token"]


def test_one_account_locked_leaves_others_from_the_same_address_and_itself_elsewhere(
    api, make_player
):
    """The rule: an account and an address together. A club room behind one router keeps
    logging in while one member's password is being guessed; the member, from home, too."""
    make_player("alice")
    make_player("bob")
    guess(api, "alice", LIMIT)
    assert token_request(api, "bob", PASSWORD).status_code == 200
    assert token_request(api, "alice", PASSWORD, address=AWAY).status_code == 200
    assert token_request(api, "alice", PASSWORD).status_code == 429


def test_fewer_wrong_passwords_than_the_limit_lock_nothing(api, make_player):
    make_player("alice")
    assert guess(api, "alice", LIMIT - 1) == [400] * (LIMIT - 1)
    assert token_request(api, "alice", PASSWORD).status_code == 200


def login(client, username, password):
    return client.post(
        reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=HOME
    )


def test_wrong_passwords_on_the_login_page_lock_it_with_a_clear_message(make_player):
    make_player("alice")
    client = Client()
    for _ in range(LIMIT - 1):
        response = login(client, "alice", "wrong")
        assert response.status_code == 200
        assert b"Wrong username or password" in response.content
    response = login(client, "alice", "wrong")
    assert response.status_code == 429
    assert b"Too many wrong passwords for this account from your address" in response.content
    assert b"15 more minutes" in response.content
    response = login(client, "alice", PASSWORD)
    assert response.status_code == 429
    assert SESSION_KEY not in client.session
    assert int(response["Retry-After"]) > 0


def test_the_page_and_the_api_share_one_lock(api, make_player):
    make_player("alice")
    client = Client()
    for _ in range(LIMIT):
        login(client, "alice", "wrong")
    assert_locked_json(token_request(api, "alice", PASSWORD))


def test_a_login_on_the_page_after_a_few_typos_starts_the_count_again(api, make_player):
    make_player("alice")
    guess(api, "alice", LIMIT - 1)
    assert login(Client(), "alice", PASSWORD).status_code == 302
    assert guess(api, "alice", LIMIT - 1) == [400] * (LIMIT - 1)


def test_staff_lift_a_lock_in_the_admin(api, make_player, staff):
    make_player("alice")
    guess(api, "alice", LIMIT)
    admin = Client()
    admin.force_login(staff.user)
    listing = admin.get(reverse("admin:axes_accessattempt_changelist"))
    assert b"alice" in listing.content
    (attempt,) = AccessAttempt.objects.filter(username="alice")
    response = admin.post(
        reverse("admin:axes_accessattempt_delete", args=[attempt.pk]), {"post": "yes"}
    )
    assert response.status_code == 302
    assert token_request(api, "alice", PASSWORD).status_code == 200


def test_a_plain_member_cannot_lift_a_lock(api, make_player):
    make_player("alice")
    mallory = make_player("mallory")
    guess(api, "alice", LIMIT)
    (attempt,) = AccessAttempt.objects.filter(username="alice")
    intruder = Client()
    intruder.force_login(mallory.user)
    intruder.post(reverse("admin:axes_accessattempt_delete", args=[attempt.pk]), {"post": "yes"})
    assert token_request(api, "alice", PASSWORD).status_code == 429


@pytest.fixture
def write_limit(monkeypatch):
    """A write rate of 30 a minute (the suite's own is far above any test's bots, see
    tests/settings.py): the number of writes a user may send in its period, and the period."""
    monkeypatch.setitem(WriteRateThrottle.THROTTLE_RATES, "writes", "30/min")
    throttle = WriteRateThrottle()
    return throttle.num_requests, throttle.duration


def payment(api, amount="1.00"):
    return api.post(
        "/api/ledger/payments/",
        {"payer": "alice", "payee": "club", "amount": amount},
        format="json",
    )


def test_writes_past_the_rate_are_a_429_that_changes_nothing(
    api, staff, make_player, write_limit, monkeypatch
):
    make_player("alice")
    count, period = write_limit
    start = WriteRateThrottle.timer()
    monkeypatch.setattr(WriteRateThrottle, "timer", lambda self: start)
    staff_api = api.as_user(staff.user)
    for _ in range(count):  # refused writes count too: nothing to gain by sending junk
        assert staff_api.post("/api/ledger/payments/", {}, format="json").status_code == 400
    response = payment(staff_api)
    assert response.status_code == 429
    assert response["Content-Type"] == "application/json"
    assert response.json()["error"] == "throttled"
    assert 0 < int(response["Retry-After"]) <= period
    assert not Transaction.objects.exists()
    assert staff_api.get("/api/ledger/trial-balance/").status_code == 200  # reads are free
    monkeypatch.setattr(WriteRateThrottle, "timer", lambda self: start + period + 1)
    assert payment(staff_api).status_code == 201
    assert Transaction.objects.count() == 1


def test_one_users_writes_do_not_throttle_another(api, staff, make_player, write_limit):
    make_player("alice")
    director2 = make_player("director2", staff=True)
    count, _period = write_limit
    staff_api = api.as_user(staff.user)
    for _ in range(count):
        staff_api.post("/api/ledger/payments/", {}, format="json")
    assert payment(staff_api).status_code == 429
    other = api.__class__().as_user(director2.user)
    assert payment(other, "2.00").status_code == 201


class UnreachableCache:
    """A cache whose server is down (Redis restarting): every call fails."""

    def get(self, *args, **kwargs):
        raise ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    set = get


def test_a_throttle_whose_cache_is_down_lets_the_write_through(
    api, staff, make_player, monkeypatch, caplog
):
    """Redis restarting must not turn every write into a 500 (the fault test found it):
    the count is skipped, logged, and the payment posted."""
    make_player("alice")
    monkeypatch.setattr(WriteRateThrottle, "cache", UnreachableCache())
    assert payment(api.as_user(staff.user)).status_code == 201
    assert Transaction.objects.count() == 1
    assert "throttle: the write counts could not be read or kept" in caplog.text


def test_behind_a_trusted_proxy_the_address_is_the_one_it_forwards(api, make_player, settings):
    """Behind a TLS proxy every request comes from the proxy: the lock goes by the
    client's address it forwards, and a client cannot pick its own by writing one in."""
    settings.TRUSTED_PROXIES = 1
    make_player("alice")

    def via_proxy(password, forwarded):
        return api.post(
            TOKEN,
            {"username": "alice", "password": password},
            format="json",
            REMOTE_ADDR="127.0.0.1",
            HTTP_X_FORWARDED_FOR=forwarded,
        )

    for n in range(LIMIT):
        via_proxy(f"wrong-{n}", f"{AWAY}, {HOME}")  # the left one written by the client
    assert via_proxy(PASSWORD, HOME).status_code == 429
    assert via_proxy(PASSWORD, f"10.9.9.9, {HOME}").status_code == 429
    assert via_proxy(PASSWORD, AWAY).status_code == 200
