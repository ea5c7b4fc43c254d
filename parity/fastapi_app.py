"""
The reference for `npm run parity`: the six /public endpoints of the spec declared in real FastAPI
(0.142) / Pydantic (2.13) with the parameters, types and bounds of our OpenAPI document. Handlers
only validate: they answer fixed bodies. Known ids come from the environment (PARITY_*), so that
"not found" answers can be compared too.

Our own rules (order_by fields, search terms, SMS placeholders) are written here as the field
validators a FastAPI service would use, with our messages: Pydantic then decides the error's
shape (`value_error`, "Value error, ...", ctx). Phone numbers and the sendEmail/sendPhone rule are
left out: their messages are the product's, not FastAPI's.
"""

import os
import re
import uuid
from datetime import datetime
from enum import Enum
from typing import Annotated, Any, Optional

from fastapi import Body, Depends, FastAPI, Header, HTTPException, Path, Query
from pydantic import AfterValidator, BaseModel, ConfigDict, EmailStr, Field, Json, field_validator

API_KEY = os.environ.get("PARITY_API_KEY", "")
REPORT_ID = os.environ.get("PARITY_REPORT_ID", "")
USER_ID = os.environ.get("PARITY_USER_ID", "")
DEALERSHIP_ID = os.environ.get("PARITY_DEALERSHIP_ID", "")

app = FastAPI(redirect_slashes=True)


def api_key(x_api_key: Annotated[Optional[str], Header()] = None) -> str:
    if not x_api_key:
        raise HTTPException(401, "Not authenticated", headers={"WWW-Authenticate": "APIKey"})
    if x_api_key != API_KEY:
        raise HTTPException(401, "Invalid API key")
    return x_api_key


class ReportType(str, Enum):
    inspection = "inspection"
    counter_inspection = "counter_inspection"
    after_sale = "after_sale"
    marketing = "marketing"
    rental = "rental"
    insurance = "insurance"
    remote = "remote"
    extra_plate = "extra_plate"
    extra_vin = "extra_vin"
    extra_scoring = "extra_scoring"


class Lang(str, Enum):
    fr = "fr"
    en = "en"
    es = "es"
    de = "de"
    it = "it"
    nl = "nl"
    pt = "pt"


REPORT_ORDER = ["created_at", "updated_at", "token", "type", "vin", "license_number", "brand", "dealership_name"]
USER_ORDER = ["created_at", "name", "email", "last_activity"]
DEALERSHIP_ORDER = ["name", "position", "created_at"]
PLACEHOLDERS = ["name", "link", "dealership", "folder_name", "organization"]


def order_by_validator(allowed):
    def check(value: Optional[str]) -> Optional[str]:
        if value is None:
            return value
        for term in value.split(","):
            field = term[1:] if term.startswith("-") else term
            if field not in allowed:
                raise ValueError(f"unknown order_by field '{field}'; allowed: {', '.join(allowed)}")
        return value

    return check


def search_validator(value: Optional[str]) -> Optional[str]:
    if value is None:
        return value
    terms = value.split()
    if len(terms) > 10:
        raise ValueError(f"at most 10 search terms, got {len(terms)}")
    if any(len(term) > 100 for term in terms):
        raise ValueError("a search term has at most 100 characters")
    return value


def json_object(value: Any) -> Any:
    """A JSON filter is an object: a containment test of an array or a scalar is not a filter."""
    if value is not None and not isinstance(value, dict):
        raise ValueError('a JSON object is required, e.g. {"folder_sold":{"status":true}}')
    return value


JsonFilter = Annotated[Optional[Json[Any]], Query(), AfterValidator(json_object)]
Limit = Annotated[Optional[int], Query(ge=0, le=1000)]
Offset = Annotated[int, Query(ge=0, le=2147483647)]
Uuid = Annotated[Optional[uuid.UUID], Query()]
When = Annotated[Optional[datetime], Query()]


def page_answer(limit, offset):
    return {"items": [], "limit": limit, "offset": offset, "total": 0}


@app.get("/public/reports/")
def list_reports(
    _key: Annotated[str, Depends(api_key)],
    limit: Limit = 100,
    offset: Offset = 0,
    created_at__gte: When = None,
    created_at__lte: When = None,
    updated_at__gte: When = None,
    updated_at__lte: When = None,
    organization_id: Uuid = None,
    dealership_id: Uuid = None,
    entity_id: Uuid = None,
    profile_id: Uuid = None,
    contact_id: Uuid = None,
    counter_id: Uuid = None,
    token: Uuid = None,
    vin: Annotated[Optional[str], Query(max_length=64)] = None,
    license_number: Annotated[Optional[str], Query(max_length=64)] = None,
    brand: Annotated[Optional[str], Query(max_length=64)] = None,
    version: Annotated[Optional[str], Query(max_length=64)] = None,
    organization_name: Annotated[Optional[str], Query(max_length=200)] = None,
    dealership_name: Annotated[Optional[str], Query(max_length=200)] = None,
    entity_name: Annotated[Optional[str], Query(max_length=200)] = None,
    search: Annotated[Optional[str], Query(max_length=500), AfterValidator(search_validator)] = None,
    valid: bool = True,
    type: Optional[ReportType] = None,
    data__contains: JsonFilter = None,
    state__contains: JsonFilter = None,
    state__not_contains: JsonFilter = None,
    order_by: Annotated[Optional[str], Query(max_length=200), AfterValidator(order_by_validator(REPORT_ORDER))] = None,
):
    return page_answer(limit, offset)


@app.get("/public/reports/{report_id}")
def get_report(_key: Annotated[str, Depends(api_key)], report_id: Annotated[uuid.UUID, Path()]):
    if str(report_id) != REPORT_ID:
        raise HTTPException(404, "Report not found")
    return {"token": str(report_id)}


class CreateLead(BaseModel):
    model_config = ConfigDict(extra="ignore")

    dealership: uuid.UUID
    email: Optional[EmailStr] = None
    name: Optional[str] = Field(None, max_length=100)
    folder_name: Optional[str] = Field(None, max_length=100)
    lang: Lang = Lang.fr
    custom_sms: Optional[str] = Field(None, max_length=480)
    sendEmail: bool = False
    sendPhone: bool = False

    @field_validator("custom_sms")
    @classmethod
    def known_placeholders(cls, value: Optional[str]) -> Optional[str]:
        if value is None:
            return value
        for name in re.findall(r"\{([^{}]*)\}", value):
            if name not in PLACEHOLDERS:
                raise ValueError(f"unknown placeholder {{{name}}}")
        return value


@app.post("/public/reports/create-lead", status_code=201)
def create_lead(
    lead: CreateLead,
    _key: Annotated[str, Depends(api_key)],
    idempotency_key: Annotated[Optional[str], Header(max_length=255, pattern=r"^[!-~]+$")] = None,
):
    if str(lead.dealership) != DEALERSHIP_ID:
        raise HTTPException(404, "Dealership not found")
    return {"token": "00000000-0000-4000-8000-000000000000", "link": "https://app.example/reports/x"}


@app.get("/public/users/")
def list_users(
    _key: Annotated[str, Depends(api_key)],
    limit: Limit = 100,
    offset: Offset = 0,
    created_at__gte: When = None,
    created_at__lte: When = None,
    organization_id: Uuid = None,
    entity_id: Uuid = None,
    order_by: Annotated[Optional[str], Query(max_length=200), AfterValidator(order_by_validator(USER_ORDER))] = None,
):
    return page_answer(limit, offset)


@app.get("/public/users/{user_id}")
def get_user(_key: Annotated[str, Depends(api_key)], user_id: Annotated[uuid.UUID, Path()]):
    if str(user_id) != USER_ID:
        raise HTTPException(404, "User not found")
    return {"id": str(user_id)}


@app.get("/public/dealerships/")
def list_dealerships(
    _key: Annotated[str, Depends(api_key)],
    limit: Limit = 100,
    offset: Offset = 0,
    order_by: Annotated[Optional[str], Query(max_length=200), AfterValidator(order_by_validator(DEALERSHIP_ORDER))] = None,
):
    return page_answer(limit, offset)
