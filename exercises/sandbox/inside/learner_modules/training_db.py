"""training_db: the customer database behind the customer-lookup-tool exercise. Every customer is fictional.

    import training_db

    training_db.get_customer("CUST-00042")          # -> a dict with the customer's record
    training_db.get_customer("CUST-99999")          # -> None: the query ran and no customer has that id
    training_db.get_customer("CUST-00042", failure_mode="timeout")   # raises training_db.DatabaseTimeout

`failure_mode` makes the database fail the way production databases do, so your tool can practise reporting it:

    "none"          the normal lookup
    "timeout"       DatabaseTimeout: the database did not answer within 5 seconds. It is overloaded, not broken:
                    the same query usually succeeds again within about 30 seconds.
    "permission"    AccessDenied: the tool's service account is not allowed to read customer records. Only someone
                    who grants the access can change that.
    "refund_limit"  RefundPolicyViolation: the customer's account is frozen by the refund policy (automatic refunds
                    are capped at 500 per customer; this account went over and waits for a person's review), so its
                    record may not be shown to automated agents.

Any other failure_mode raises ValueError.

The exceptions' messages are written for the database's operators: they name hosts, ports and database roles.
They must never reach a tool result. Each exception also carries attributes that are safe to use:
`customer_id`, and `DatabaseTimeout.timeout_seconds`, `AccessDenied.required_scope`,
`RefundPolicyViolation.refund_limit`.

The database does not check the format of ids: it looks up whatever it is given. Customer ids look like `CUST-`
followed by five digits (CUST-00042); checking that is the tool's job, before it queries the database.
"""

FAILURE_MODES = ("none", "timeout", "permission", "refund_limit")

_CUSTOMERS = {
    "CUST-00007": {"name": "Marguerite Okonkwo", "email": "m.okonkwo@example.com", "tier": "gold",
                   "country": "NG", "customer_since": "2017-03-14"},
    "CUST-00042": {"name": "Ada Lindqvist", "email": "ada.lindqvist@example.com", "tier": "standard",
                   "country": "SE", "customer_since": "2021-09-02"},
    "CUST-00113": {"name": "Layla Haddad (ليلى حداد)", "email": "layla.haddad@example.com", "tier": "silver",
                   "country": "LB", "customer_since": "2019-11-30"},
    "CUST-01024": {"name": "Zoë Ångström", "email": "zoe.angstrom@example.com", "tier": "standard",
                   "country": "FI", "customer_since": "2023-01-17"},
    "CUST-31337": {"name": "Tomás Ferreira", "email": "tomas.ferreira@example.com", "tier": "gold",
                   "country": "PT", "customer_since": "2015-06-08"},
}


class DatabaseError(Exception):
    """Base class of the database's own failures."""

    def __init__(self, customer_id, message: str):
        super().__init__(message)
        self.customer_id = customer_id


class DatabaseTimeout(DatabaseError):
    timeout_seconds = 5

    def __init__(self, customer_id):
        super().__init__(customer_id, f"canceling statement due to statement timeout: 5000 ms on "
                                      f"crm-db-03.internal:5432 (pool crm_readers, query customers_by_id "
                                      f"{customer_id!r})")


class AccessDenied(DatabaseError):
    required_scope = "customers:read"

    def __init__(self, customer_id):
        super().__init__(customer_id, "permission denied for table crm.customers: role 'svc_support_bot' lacks "
                                      "SELECT (host crm-db-03.internal:5432)")


class RefundPolicyViolation(DatabaseError):
    refund_limit = 500

    def __init__(self, customer_id):
        super().__init__(customer_id, f"row lock by refund-policy engine on refunds-db.internal:6432 for "
                                      f"{customer_id!r}: refunds_total_cents=61250 > limit_cents=50000 "
                                      f"(role svc_refund_guard)")


_RAISES = {"timeout": DatabaseTimeout, "permission": AccessDenied, "refund_limit": RefundPolicyViolation}


def _lookup(customer_id, failure_mode):
    """What the database answers: the record, None, or the exception to raise."""
    if failure_mode not in FAILURE_MODES:
        raise ValueError(f"unknown failure_mode {failure_mode!r}: use one of {', '.join(FAILURE_MODES)}")
    if failure_mode in _RAISES:
        raise _RAISES[failure_mode](customer_id)
    record = _CUSTOMERS.get(customer_id) if isinstance(customer_id, str) else None
    return None if record is None else {"customer_id": customer_id, **record}


def _local_query(customer_id, failure_mode):
    return _lookup(customer_id, failure_mode)


# How a query reaches the database. When the grader runs your tool, queries go to the grader's copy of this
# module, which also notes which ids reached the database.
_query = _local_query


def get_customer(customer_id, failure_mode="none"):
    """The customer's record as a dict, or None when the query ran and no customer has that id.

    Raises DatabaseTimeout, AccessDenied or RefundPolicyViolation according to `failure_mode`."""
    return _query(customer_id, failure_mode)
