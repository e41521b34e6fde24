"""Settings for the MCP error-handling trainer.

Defaults are safe for production (DEBUG off); `make run` turns development mode on through
`DJANGO_DEBUG=1`. The database is SQLite under `var/` unless `DATABASE_URL` names another.
"""
import os
import secrets
from pathlib import Path

import dj_database_url

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("TRAINER_VAR_DIR", BASE_DIR / "var"))
VAR_DIR.mkdir(parents=True, exist_ok=True)


def _env_flag(name: str, default: bool = False) -> bool:
    return os.environ.get(name, "1" if default else "0").strip().lower() in {"1", "true", "yes", "on"}


def _secret_key() -> str:
    """The key from the environment, or one generated once and kept under var/ (never in git)."""
    if key := os.environ.get("DJANGO_SECRET_KEY"):
        return key
    key_file = VAR_DIR / "secret_key"
    if not key_file.exists():
        key_file.write_text(secrets.token_urlsafe(50))
        key_file.chmod(0o600)
    return key_file.read_text().strip()


SECRET_KEY = _secret_key()
DEBUG = _env_flag("DJANGO_DEBUG")
ALLOWED_HOSTS = [h for h in os.environ.get("DJANGO_ALLOWED_HOSTS", "127.0.0.1,localhost").split(",") if h]
CSRF_TRUSTED_ORIGINS = [o for o in os.environ.get("DJANGO_CSRF_TRUSTED_ORIGINS", "").split(",") if o]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django_htmx",
    "template_partials",
    "django_tasks",
    "django_tasks_db",
    "accounts",
    "lessons",
    "exercises",
    "cohorts",
    "authoring",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "exercises.middleware.ApiBodyLimitMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
]

ROOT_URLCONF = "trainer.urls"
ASGI_APPLICATION = "trainer.asgi.application"
WSGI_APPLICATION = "trainer.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "accounts.roles.roles",
            ],
        },
    }
]

DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{VAR_DIR / 'db.sqlite3'}", conn_max_age=0
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Several worker processes share the file: take the write lock up front and wait for it.
    DATABASES["default"]["OPTIONS"] = {"transaction_mode": "IMMEDIATE", "timeout": 20}

TASKS = {
    "default": {
        "BACKEND": "django_tasks_db.DatabaseBackend",
        "QUEUES": ["default"],
    }
}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "accounts:login"
LOGIN_REDIRECT_URL = "lessons:dashboard"
LOGOUT_REDIRECT_URL = "home"

LANGUAGE_CODE = "en-gb"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "staticfiles"
STATIC_ROOT.mkdir(parents=True, exist_ok=True)
# Serve straight from static/ (no collectstatic step on a laptop); a deployment may run collectstatic.
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = DEBUG
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
if not DEBUG:
    SESSION_COOKIE_SECURE = _env_flag("DJANGO_SECURE_COOKIES")
    CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE

# Where lesson and question files live; `sync_content` reads them.
CONTENT_DIR = BASE_DIR / "lessons" / "content"
EXERCISE_CONTENT_DIR = BASE_DIR / "exercises" / "content"

# The live training MCP server at /mcp/: requests per minute each learner's instance may receive.
MCP_RATE_LIMIT_PER_MINUTE = int(os.environ.get("MCP_RATE_LIMIT_PER_MINUTE", "120"))
# The JSON API: submissions per minute per user, and the largest request body accepted.
API_SUBMISSIONS_PER_MINUTE = int(os.environ.get("API_SUBMISSIONS_PER_MINUTE", "30"))
API_MAX_BODY_BYTES = 256 * 1024

# The sandbox for learners' code (bubblewrap). The runtime is a venv built from Debian's /usr/bin/python3 with
# only `mcp` installed (`make setup`); a pool of this many warm sandboxes waits in each grading worker.
SANDBOX_RUNTIME = Path(os.environ.get("SANDBOX_RUNTIME", BASE_DIR / "var" / "sandbox-runtime"))
SANDBOX_POOL_SIZE = int(os.environ.get("SANDBOX_POOL_SIZE", "2"))
# Development only, never where other people's code is graded: run learner code with no sandbox (loud warnings).
SANDBOX_ALLOW_UNSANDBOXED = _env_flag("SANDBOX_ALLOW_UNSANDBOXED")
# A grading still `running` after this long lost its worker; the sweeper queues it again (at most this often).
GRADING_STALE_AFTER_SECONDS = int(os.environ.get("GRADING_STALE_AFTER_SECONDS", "180"))
GRADING_MAX_RUNS = 3
GRADING_SWEEP_INTERVAL_SECONDS = float(os.environ.get("GRADING_SWEEP_INTERVAL_SECONDS", "15"))

# Practice exam defaults (a learner may choose within the bounds).
EXAM_DEFAULT_QUESTIONS = int(os.environ.get("EXAM_DEFAULT_QUESTIONS", "20"))
EXAM_DEFAULT_MINUTES = int(os.environ.get("EXAM_DEFAULT_MINUTES", "30"))
EXAM_GRACE_SECONDS = 15

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": "INFO"},
    "loggers": {"django.db.backends": {"level": "WARNING"}},
}
