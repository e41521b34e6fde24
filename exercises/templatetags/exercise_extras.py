from django import template

register = template.Library()


@register.filter
def get_item(mapping, key):
    return mapping.get(key) if isinstance(mapping, dict) else None


@register.filter
def failed_count(checks) -> int:
    return sum(1 for check in checks or [] if check.get("status") == "fail")
