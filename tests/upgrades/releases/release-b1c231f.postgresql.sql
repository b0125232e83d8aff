--
-- PostgreSQL database dump
--

\restrict Zm08FP6ZEDl0Pn1ytRuQBn7ohaR2YQVZEPHwzBDhAPD5gO3350Fe6i0EVm1NHx4

-- Dumped from database version 15.20 (Debian 15.20-0+deb12u1)
-- Dumped by pg_dump version 15.20 (Debian 15.20-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: allocation; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.allocation (
    participant_id character varying NOT NULL,
    stratum character varying NOT NULL,
    sequence integer NOT NULL,
    arm character varying NOT NULL,
    created_at timestamp with time zone NOT NULL
);


--
-- Name: api_token; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.api_token (
    id integer NOT NULL,
    name character varying NOT NULL,
    role character varying NOT NULL,
    token_hash character varying NOT NULL,
    created_at timestamp with time zone NOT NULL,
    created_by character varying NOT NULL,
    revoked_at timestamp with time zone,
    revoked_by character varying
);


--
-- Name: api_token_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.api_token_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: api_token_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.api_token_id_seq OWNED BY public.api_token.id;


--
-- Name: apscheduler_jobs; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.apscheduler_jobs (
    id character varying(191) NOT NULL,
    next_run_time double precision,
    job_state bytea NOT NULL
);


--
-- Name: audit_log; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.audit_log (
    id integer NOT NULL,
    actor character varying NOT NULL,
    role character varying NOT NULL,
    action character varying NOT NULL,
    participant_id character varying,
    detail jsonb NOT NULL,
    via character varying NOT NULL,
    created_at timestamp with time zone NOT NULL
);


--
-- Name: audit_log_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.audit_log_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: audit_log_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.audit_log_id_seq OWNED BY public.audit_log.id;


--
-- Name: consent; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.consent (
    id integer NOT NULL,
    participant_id character varying NOT NULL,
    event character varying NOT NULL,
    source character varying NOT NULL,
    actor character varying NOT NULL,
    words text NOT NULL,
    created_at timestamp with time zone NOT NULL
);


--
-- Name: consent_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.consent_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: consent_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.consent_id_seq OWNED BY public.consent.id;


--
-- Name: conversation; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.conversation (
    participant_id character varying NOT NULL,
    sub_state character varying NOT NULL,
    profile jsonb NOT NULL,
    tone jsonb NOT NULL,
    summary text NOT NULL,
    summary_through integer NOT NULL,
    turns_since_summary integer NOT NULL,
    version integer NOT NULL,
    updated_at timestamp with time zone NOT NULL
);


--
-- Name: decision; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.decision (
    id integer NOT NULL,
    participant_id character varying NOT NULL,
    inbox_id integer NOT NULL,
    schedule_id character varying,
    arm character varying,
    study_day integer,
    local_date character varying NOT NULL,
    scheduled_for timestamp with time zone,
    decided_at timestamp with time zone NOT NULL,
    local_time character varying NOT NULL,
    timezone character varying NOT NULL,
    available boolean NOT NULL,
    unavailable_reason character varying,
    probability double precision,
    action character varying NOT NULL,
    draw double precision,
    seed_ref character varying NOT NULL,
    prompt_message_id integer,
    prompt_style character varying,
    model character varying,
    system_prompt_hash character varying,
    protocol_hash character varying,
    not_sent_reason character varying
);


--
-- Name: decision_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.decision_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: decision_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.decision_id_seq OWNED BY public.decision.id;


--
-- Name: flag; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.flag (
    id integer NOT NULL,
    participant_id character varying NOT NULL,
    source character varying NOT NULL,
    severity character varying NOT NULL,
    trigger text NOT NULL,
    message_id integer,
    status character varying NOT NULL,
    resolved_at timestamp with time zone,
    resolved_by character varying,
    resolution_note text NOT NULL,
    alert_status character varying NOT NULL,
    alert_attempts integer NOT NULL,
    alerted_at timestamp with time zone,
    created_at timestamp with time zone NOT NULL
);


--
-- Name: flag_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.flag_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: flag_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.flag_id_seq OWNED BY public.flag.id;


--
-- Name: inbox; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.inbox (
    id integer NOT NULL,
    key character varying NOT NULL,
    participant_id character varying NOT NULL,
    kind character varying NOT NULL,
    payload jsonb NOT NULL,
    message_id integer,
    status character varying NOT NULL,
    attempts integer NOT NULL,
    available_at timestamp with time zone NOT NULL,
    created_at timestamp with time zone NOT NULL,
    processed_at timestamp with time zone,
    last_error text
);


--
-- Name: inbox_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.inbox_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: inbox_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.inbox_id_seq OWNED BY public.inbox.id;


--
-- Name: lid_mapping; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.lid_mapping (
    lid character varying NOT NULL,
    phone character varying NOT NULL,
    updated_at timestamp with time zone NOT NULL
);


--
-- Name: message; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.message (
    id integer NOT NULL,
    participant_id character varying NOT NULL,
    direction character varying NOT NULL,
    role character varying NOT NULL,
    kind character varying NOT NULL,
    text text NOT NULL,
    payload jsonb NOT NULL,
    wa_message_id character varying,
    status character varying NOT NULL,
    created_at timestamp with time zone NOT NULL,
    sent_at timestamp with time zone,
    receipts_expected boolean NOT NULL
);


--
-- Name: message_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.message_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: message_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.message_id_seq OWNED BY public.message.id;


--
-- Name: outbox; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.outbox (
    id integer NOT NULL,
    key character varying NOT NULL,
    participant_id character varying NOT NULL,
    message_id integer NOT NULL,
    status character varying NOT NULL,
    attempts integer NOT NULL,
    available_at timestamp with time zone NOT NULL,
    claimed_at timestamp with time zone,
    sent_at timestamp with time zone,
    wa_message_id character varying,
    last_error text,
    created_at timestamp with time zone NOT NULL,
    held_until timestamp with time zone
);


--
-- Name: outbox_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.outbox_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: outbox_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.outbox_id_seq OWNED BY public.outbox.id;


--
-- Name: participant; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.participant (
    id character varying NOT NULL,
    phone character varying NOT NULL,
    lid character varying,
    name character varying NOT NULL,
    timezone character varying NOT NULL,
    status character varying NOT NULL,
    opted_out boolean NOT NULL,
    researcher_paused boolean NOT NULL,
    paused_by character varying,
    background text NOT NULL,
    enrolled_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    erased_at timestamp with time zone,
    erased_by character varying,
    arm character varying,
    strata jsonb,
    day_one character varying,
    extra_days integer NOT NULL,
    completed_at timestamp with time zone
);


--
-- Name: prompt_delivery; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.prompt_delivery (
    id integer NOT NULL,
    participant_id character varying NOT NULL,
    inbox_id integer NOT NULL,
    schedule_id character varying,
    local_date character varying NOT NULL,
    prompt_text text NOT NULL,
    prompt_message_id integer,
    poll_message_id integer,
    sent_at timestamp with time zone NOT NULL,
    vote character varying,
    voted_at timestamp with time zone,
    vote_changes integer NOT NULL,
    vote_source character varying,
    replied_at timestamp with time zone,
    reminder_at timestamp with time zone
);


--
-- Name: prompt_delivery_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.prompt_delivery_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: prompt_delivery_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.prompt_delivery_id_seq OWNED BY public.prompt_delivery.id;


--
-- Name: receipt; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.receipt (
    id integer NOT NULL,
    wa_message_id character varying NOT NULL,
    kind character varying NOT NULL,
    at timestamp with time zone NOT NULL,
    received_at timestamp with time zone NOT NULL
);


--
-- Name: receipt_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.receipt_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: receipt_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.receipt_id_seq OWNED BY public.receipt.id;


--
-- Name: schedule; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.schedule (
    id character varying NOT NULL,
    participant_id character varying NOT NULL,
    kind character varying NOT NULL,
    habit_time character varying,
    window_start character varying,
    window_end character varying,
    prep_minutes integer NOT NULL,
    active boolean NOT NULL,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL
);


--
-- Name: self_report; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.self_report (
    id integer NOT NULL,
    participant_id character varying NOT NULL,
    local_date character varying NOT NULL,
    poll_message_id integer,
    asked_at timestamp with time zone NOT NULL,
    answer character varying,
    answered_at timestamp with time zone
);


--
-- Name: self_report_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.self_report_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: self_report_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.self_report_id_seq OWNED BY public.self_report.id;


--
-- Name: service_status; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.service_status (
    name character varying NOT NULL,
    value jsonb NOT NULL,
    updated_at timestamp with time zone NOT NULL
);


--
-- Name: study_protocol; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.study_protocol (
    id integer NOT NULL,
    name character varying NOT NULL,
    hash character varying NOT NULL,
    contents text NOT NULL,
    previous_hash character varying,
    adopted_at timestamp with time zone NOT NULL,
    adopted_by character varying NOT NULL
);


--
-- Name: study_protocol_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.study_protocol_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: study_protocol_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.study_protocol_id_seq OWNED BY public.study_protocol.id;


--
-- Name: study_secret; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.study_secret (
    name character varying NOT NULL,
    value character varying NOT NULL,
    created_at timestamp with time zone NOT NULL
);


--
-- Name: timer; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.timer (
    id integer NOT NULL,
    participant_id character varying NOT NULL,
    kind character varying NOT NULL,
    due_at timestamp with time zone NOT NULL,
    payload jsonb NOT NULL,
    status character varying NOT NULL,
    reason text NOT NULL,
    created_at timestamp with time zone NOT NULL,
    settled_at timestamp with time zone
);


--
-- Name: timer_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.timer_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: timer_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.timer_id_seq OWNED BY public.timer.id;


--
-- Name: tone_event; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.tone_event (
    id integer NOT NULL,
    participant_id character varying NOT NULL,
    source character varying NOT NULL,
    proposed jsonb NOT NULL,
    stripped jsonb NOT NULL,
    outcome character varying NOT NULL,
    active_before jsonb NOT NULL,
    active_after jsonb NOT NULL,
    scores jsonb NOT NULL,
    created_at timestamp with time zone NOT NULL
);


--
-- Name: tone_event_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.tone_event_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: tone_event_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.tone_event_id_seq OWNED BY public.tone_event.id;


--
-- Name: transition; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.transition (
    id integer NOT NULL,
    participant_id character varying NOT NULL,
    kind character varying NOT NULL,
    name character varying NOT NULL,
    from_value character varying,
    to_value character varying NOT NULL,
    reason text NOT NULL,
    actor character varying,
    created_at timestamp with time zone NOT NULL
);


--
-- Name: transition_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.transition_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: transition_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.transition_id_seq OWNED BY public.transition.id;


--
-- Name: api_token id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.api_token ALTER COLUMN id SET DEFAULT nextval('public.api_token_id_seq'::regclass);


--
-- Name: audit_log id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.audit_log ALTER COLUMN id SET DEFAULT nextval('public.audit_log_id_seq'::regclass);


--
-- Name: consent id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.consent ALTER COLUMN id SET DEFAULT nextval('public.consent_id_seq'::regclass);


--
-- Name: decision id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.decision ALTER COLUMN id SET DEFAULT nextval('public.decision_id_seq'::regclass);


--
-- Name: flag id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.flag ALTER COLUMN id SET DEFAULT nextval('public.flag_id_seq'::regclass);


--
-- Name: inbox id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.inbox ALTER COLUMN id SET DEFAULT nextval('public.inbox_id_seq'::regclass);


--
-- Name: message id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.message ALTER COLUMN id SET DEFAULT nextval('public.message_id_seq'::regclass);


--
-- Name: outbox id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.outbox ALTER COLUMN id SET DEFAULT nextval('public.outbox_id_seq'::regclass);


--
-- Name: prompt_delivery id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.prompt_delivery ALTER COLUMN id SET DEFAULT nextval('public.prompt_delivery_id_seq'::regclass);


--
-- Name: receipt id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.receipt ALTER COLUMN id SET DEFAULT nextval('public.receipt_id_seq'::regclass);


--
-- Name: self_report id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.self_report ALTER COLUMN id SET DEFAULT nextval('public.self_report_id_seq'::regclass);


--
-- Name: study_protocol id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.study_protocol ALTER COLUMN id SET DEFAULT nextval('public.study_protocol_id_seq'::regclass);


--
-- Name: timer id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.timer ALTER COLUMN id SET DEFAULT nextval('public.timer_id_seq'::regclass);


--
-- Name: tone_event id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.tone_event ALTER COLUMN id SET DEFAULT nextval('public.tone_event_id_seq'::regclass);


--
-- Name: transition id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.transition ALTER COLUMN id SET DEFAULT nextval('public.transition_id_seq'::regclass);


--
-- Data for Name: allocation; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.allocation VALUES ('p_9faa7597eb53414c', '', 1, 'default', '2026-01-06 04:57:43.010549+00');
INSERT INTO public.allocation VALUES ('p_f7b441df5a1340c1', '', 2, 'default', '2026-01-06 04:57:49.63488+00');
INSERT INTO public.allocation VALUES ('p_0ff469801d9e15a8', '', 3, 'default', '2026-01-06 04:57:53.513851+00');
INSERT INTO public.allocation VALUES ('p_b07a9fc1c17001c7', '', 4, 'default', '2026-01-06 04:57:58.555353+00');
INSERT INTO public.allocation VALUES ('p_1dd9539d11808ef5', '', 5, 'default', '2026-01-06 04:58:03.560996+00');


--
-- Data for Name: api_token; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.api_token VALUES (1, 'fixture-admin', 'admin', '9ac30518253d8006906ecc1cc063e4d136284b5abac62b7c6b16e69e3c4427c4', '2026-01-06 04:58:50.86662+00', 'root', NULL, NULL);


--
-- Data for Name: apscheduler_jobs; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.apscheduler_jobs VALUES ('study_end:p_9faa7597eb53414c', 1768885200, '\x800595be010000000000007d94288c0776657273696f6e944b018c026964948c1c73747564795f656e643a705f39666161373539376562353334313463948c0466756e63948c2470726f6d7074706970652e7363686564756c696e672e6a6f62733a74696d65725f647565948c0774726967676572948c1961707363686564756c65722e74726967676572732e64617465948c0b44617465547269676765729493942981947d942868014b018c0872756e5f64617465948c086461746574696d65948c086461746574696d65949394430a07ea011405000000000094680d8c0874696d657a6f6e65949394680d8c0974696d6564656c74619493944b004b004b0087945294859452948694529475628c086578656375746f72948c0764656661756c74948c046172677394298c066b7761726773947d94288c0e7061727469636970616e745f6964948c12705f39666161373539376562353334313463948c0874696d65725f6964944b06758c046e616d65948c0974696d65725f647565948c126d6973666972655f67726163655f74696d65944d100e8c08636f616c6573636594888c0d6d61785f696e7374616e636573944b018c0d6e6578745f72756e5f74696d6594681a752e');
INSERT INTO public.apscheduler_jobs VALUES ('feedback_check_in:p_9faa7597eb53414c', 1767676391.507055, '\x800595c6010000000000007d94288c0776657273696f6e944b018c026964948c24666565646261636b5f636865636b5f696e3a705f39666161373539376562353334313463948c0466756e63948c2470726f6d7074706970652e7363686564756c696e672e6a6f62733a74696d65725f647565948c0774726967676572948c1961707363686564756c65722e74726967676572732e64617465948c0b44617465547269676765729493942981947d942868014b018c0872756e5f64617465948c086461746574696d65948c086461746574696d65949394430a07ea0106050d0b07bcaf94680d8c0874696d657a6f6e65949394680d8c0974696d6564656c74619493944b004b004b0087945294859452948694529475628c086578656375746f72948c0764656661756c74948c046172677394298c066b7761726773947d94288c0e7061727469636970616e745f6964948c12705f39666161373539376562353334313463948c0874696d65725f6964944b07758c046e616d65948c0974696d65725f647565948c126d6973666972655f67726163655f74696d65944d100e8c08636f616c6573636594888c0d6d61785f696e7374616e636573944b018c0d6e6578745f72756e5f74696d6594681a752e');
INSERT INTO public.apscheduler_jobs VALUES ('daily:p_9faa7597eb53414c:s_f8f4aa67', 1767762060, '\x80059554020000000000007d94288c0776657273696f6e944b018c026964948c236461696c793a705f396661613735393765623533343134633a735f6638663461613637948c0466756e63948c2b70726f6d7074706970652e7363686564756c696e672e6a6f62733a6461696c795f70726f6d70745f647565948c0774726967676572948c1d70726f6d7074706970652e7363686564756c696e672e74726967676572948c124461696c7950726f6d7074547269676765729493942981947d942868014b018c046b696e64948c056669786564948c0a68616269745f74696d65948c0530303a3031948c0c77696e646f775f7374617274944e8c0a77696e646f775f656e64944e8c0c707265705f6d696e75746573944b008c0473656564948c0a735f6638663461613637948c047a6f6e65948c0f416d65726963612f546f726f6e746f9475628c086578656375746f72948c0764656661756c74948c046172677394298c066b7761726773947d94288c0e7061727469636970616e745f6964948c12705f39666161373539376562353334313463948c0b7363686564756c655f6964946814758c046e616d65948c106461696c795f70726f6d70745f647565948c126d6973666972655f67726163655f74696d65944d100e8c08636f616c6573636594888c0d6d61785f696e7374616e636573944b018c0d6e6578745f72756e5f74696d65948c086461746574696d65948c086461746574696d65949394430a07ea01070501000000009468258c0874696d657a6f6e6594939468258c0974696d6564656c74619493944b004b004b00879452948594529486945294752e');


--
-- Data for Name: audit_log; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: consent; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.consent VALUES (1, 'p_9faa7597eb53414c', 'enrolled', 'researcher', 'root', 'enrolled by a researcher', '2026-01-06 04:57:43.010549+00');
INSERT INTO public.consent VALUES (2, 'p_f7b441df5a1340c1', 'enrolled', 'researcher', 'root', 'enrolled by a researcher', '2026-01-06 04:57:49.63488+00');
INSERT INTO public.consent VALUES (3, 'p_0ff469801d9e15a8', 'enrolled', 'researcher', 'root', 'enrolled by a researcher', '2026-01-06 04:57:53.513851+00');
INSERT INTO public.consent VALUES (4, 'p_b07a9fc1c17001c7', 'enrolled', 'researcher', 'root', 'enrolled by a researcher', '2026-01-06 04:57:58.555353+00');
INSERT INTO public.consent VALUES (5, 'p_1dd9539d11808ef5', 'enrolled', 'researcher', 'root', 'enrolled by a researcher', '2026-01-06 04:58:03.560996+00');
INSERT INTO public.consent VALUES (6, 'p_f7b441df5a1340c1', 'opted_out', 'participant', '', 'STOP', '2026-01-06 04:58:18.110605+00');
INSERT INTO public.consent VALUES (7, 'p_0ff469801d9e15a8', 'paused', 'researcher', 'root', 'on holiday', '2026-01-06 04:58:22.431079+00');
INSERT INTO public.consent VALUES (8, 'p_b07a9fc1c17001c7', 'withdrawn', 'researcher', 'root', 'moved away', '2026-01-06 04:58:27.598993+00');
INSERT INTO public.consent VALUES (9, 'p_1dd9539d11808ef5', 'opted_out', 'participant', '', 'STOP', '2026-01-06 04:58:34.261738+00');
INSERT INTO public.consent VALUES (10, 'p_1dd9539d11808ef5', 'opted_in', 'participant', '', 'START', '2026-01-06 04:58:45.17397+00');


--
-- Data for Name: conversation; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.conversation VALUES ('p_f7b441df5a1340c1', 'INTAKE', '{"intensity": "normal", "last_turn_at": "2026-01-06T04:57:50.347205+00:00"}', '{}', '', 0, 1, 3, '2026-01-06 04:58:18.110605+00');
INSERT INTO public.conversation VALUES ('p_0ff469801d9e15a8', 'INTAKE', '{"intensity": "normal", "last_turn_at": "2026-01-06T04:57:54.999749+00:00"}', '{}', '', 0, 1, 3, '2026-01-06 04:58:22.431079+00');
INSERT INTO public.conversation VALUES ('p_b07a9fc1c17001c7', 'INTAKE', '{"intensity": "normal", "last_turn_at": "2026-01-06T04:57:59.064211+00:00"}', '{}', '', 0, 1, 3, '2026-01-06 04:58:27.598993+00');
INSERT INTO public.conversation VALUES ('p_1dd9539d11808ef5', 'INTAKE', '{"intensity": "normal", "last_turn_at": "2026-01-06T04:58:04.913004+00:00"}', '{}', '', 0, 1, 4, '2026-01-06 04:58:45.17397+00');
INSERT INTO public.conversation VALUES ('p_9faa7597eb53414c', 'FEEDBACK', '{"intensity": "normal", "updated_at": "2026-01-06T04:58:11.444856+00:00", "habit_domain": "walking", "last_turn_at": "2026-01-06T04:58:11.506960+00:00", "prompt_anchor": "after dinner", "preferred_time": "00:01", "motivational_frame": "to sleep better"}', '{}', '', 0, 2, 4, '2026-01-06 05:01:00.05559+00');


--
-- Data for Name: decision; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.decision VALUES (1, 'p_9faa7597eb53414c', 12, 's_f8f4aa67', 'default', 1, '2026-01-06', '2026-01-06 05:01:00+00', '2026-01-06 05:01:00.055338+00', '2026-01-06T00:01:00-05:00', 'America/Toronto', true, NULL, 0.5, 'no_send', 0.7087967148457803, 'decision:prompt:p_9faa7597eb53414c:s_f8f4aa67:2026-01-06', NULL, NULL, NULL, NULL, '553b57c6aead215c9957e24c8d144b810b5ba754bd829dd4d8cacd69ead930d4', NULL);


--
-- Data for Name: flag; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: inbox; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.inbox VALUES (1, 'enroll:p_9faa7597eb53414c', 'p_9faa7597eb53414c', 'enroll', '{}', NULL, 'done', 0, '2026-01-06 04:57:43.010549+00', '2026-01-06 04:57:43.010549+00', '2026-01-06 04:57:44.84321+00', NULL);
INSERT INTO public.inbox VALUES (2, 'enroll:p_f7b441df5a1340c1', 'p_f7b441df5a1340c1', 'enroll', '{}', NULL, 'done', 0, '2026-01-06 04:57:49.63488+00', '2026-01-06 04:57:49.63488+00', '2026-01-06 04:57:50.347304+00', NULL);
INSERT INTO public.inbox VALUES (3, 'enroll:p_0ff469801d9e15a8', 'p_0ff469801d9e15a8', 'enroll', '{}', NULL, 'done', 0, '2026-01-06 04:57:53.513851+00', '2026-01-06 04:57:53.513851+00', '2026-01-06 04:57:54.99986+00', NULL);
INSERT INTO public.inbox VALUES (4, 'enroll:p_b07a9fc1c17001c7', 'p_b07a9fc1c17001c7', 'enroll', '{}', NULL, 'done', 0, '2026-01-06 04:57:58.555353+00', '2026-01-06 04:57:58.555353+00', '2026-01-06 04:57:59.064308+00', NULL);
INSERT INTO public.inbox VALUES (5, 'enroll:p_1dd9539d11808ef5', 'p_1dd9539d11808ef5', 'enroll', '{}', NULL, 'done', 0, '2026-01-06 04:58:03.560996+00', '2026-01-06 04:58:03.560996+00', '2026-01-06 04:58:04.913093+00', NULL);
INSERT INTO public.inbox VALUES (6, 'wa:sim-0fe6c8ddacb1a7eb', 'p_9faa7597eb53414c', 'message', '{"wa_message_id": "sim-0fe6c8ddacb1a7eb"}', 6, 'done', 0, '2026-01-06 04:58:10.603299+00', '2026-01-06 04:58:10.603299+00', '2026-01-06 04:58:11.507055+00', NULL);
INSERT INTO public.inbox VALUES (7, 'wa:sim-d6790ba4cf839203', 'p_f7b441df5a1340c1', 'message', '{"wa_message_id": "sim-d6790ba4cf839203"}', 8, 'done', 0, '2026-01-06 04:58:17.501821+00', '2026-01-06 04:58:17.501821+00', '2026-01-06 04:58:18.110605+00', NULL);
INSERT INTO public.inbox VALUES (8, 'sync:p_0ff469801d9e15a8:e06f3fa3', 'p_0ff469801d9e15a8', 'sync', '{}', NULL, 'done', 0, '2026-01-06 04:58:22.431079+00', '2026-01-06 04:58:22.431079+00', '2026-01-06 04:58:23.142216+00', NULL);
INSERT INTO public.inbox VALUES (9, 'sync:p_b07a9fc1c17001c7:c9ce0ce5', 'p_b07a9fc1c17001c7', 'sync', '{}', NULL, 'done', 0, '2026-01-06 04:58:27.598993+00', '2026-01-06 04:58:27.598993+00', '2026-01-06 04:58:28.346261+00', NULL);
INSERT INTO public.inbox VALUES (10, 'wa:sim-01d69b2eb2d2c783', 'p_1dd9539d11808ef5', 'message', '{"wa_message_id": "sim-01d69b2eb2d2c783"}', 10, 'done', 0, '2026-01-06 04:58:33.163503+00', '2026-01-06 04:58:33.163503+00', '2026-01-06 04:58:34.261738+00', NULL);
INSERT INTO public.inbox VALUES (11, 'wa:sim-6ffdc521f99aa3ec', 'p_1dd9539d11808ef5', 'message', '{"wa_message_id": "sim-6ffdc521f99aa3ec"}', 12, 'done', 0, '2026-01-06 04:58:44.079329+00', '2026-01-06 04:58:44.079329+00', '2026-01-06 04:58:45.17397+00', NULL);
INSERT INTO public.inbox VALUES (12, 'prompt:p_9faa7597eb53414c:s_f8f4aa67:2026-01-06', 'p_9faa7597eb53414c', 'daily_prompt', '{"due_at": "2026-01-06T05:01:00+00:00", "local_date": "2026-01-06", "schedule_id": "s_f8f4aa67"}', NULL, 'done', 0, '2026-01-06 05:01:00.018002+00', '2026-01-06 05:01:00.018002+00', '2026-01-06 05:01:00.05559+00', NULL);


--
-- Data for Name: lid_mapping; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: message; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.message VALUES (1, 'p_9faa7597eb53414c', 'out', 'assistant', 'greeting', 'Walk around the block right after dinner tonight: ten minutes is plenty.', '{}', 'dry-779db80aa573226c', 'sent', '2026-01-06 04:57:44.84321+00', '2026-01-06 04:57:44.972438+00', false);
INSERT INTO public.message VALUES (2, 'p_f7b441df5a1340c1', 'out', 'assistant', 'greeting', 'Walk around the block right after dinner tonight: ten minutes is plenty.', '{}', 'dry-e6b6d76f9621ab16', 'sent', '2026-01-06 04:57:50.347304+00', '2026-01-06 04:57:50.389006+00', false);
INSERT INTO public.message VALUES (3, 'p_0ff469801d9e15a8', 'out', 'assistant', 'greeting', 'Walk around the block right after dinner tonight: ten minutes is plenty.', '{}', 'dry-f3feb0fd8f199a08', 'sent', '2026-01-06 04:57:54.99986+00', '2026-01-06 04:57:55.070168+00', false);
INSERT INTO public.message VALUES (4, 'p_b07a9fc1c17001c7', 'out', 'assistant', 'greeting', 'Walk around the block right after dinner tonight: ten minutes is plenty.', '{}', 'dry-b9a05ef2a3ae043f', 'sent', '2026-01-06 04:57:59.064308+00', '2026-01-06 04:57:59.105934+00', false);
INSERT INTO public.message VALUES (5, 'p_1dd9539d11808ef5', 'out', 'assistant', 'greeting', 'Walk around the block right after dinner tonight: ten minutes is plenty.', '{}', 'dry-2ac5af73d67944d3', 'sent', '2026-01-06 04:58:04.913093+00', '2026-01-06 04:58:05.069966+00', false);
INSERT INTO public.message VALUES (6, 'p_9faa7597eb53414c', 'in', 'user', 'text', 'I''d like to walk around the block after dinner, just after midnight works', '{}', 'sim-0fe6c8ddacb1a7eb', 'answered', '2026-01-06 04:58:10.603299+00', NULL, false);
INSERT INTO public.message VALUES (7, 'p_9faa7597eb53414c', 'out', 'assistant', 'text', 'Lovely, your plan is set. I''ll nudge you each day.', '{}', 'dry-f47c0cb223481e39', 'sent', '2026-01-06 04:58:11.507055+00', '2026-01-06 04:58:11.590145+00', false);
INSERT INTO public.message VALUES (8, 'p_f7b441df5a1340c1', 'in', 'user', 'text', 'STOP', '{}', 'sim-d6790ba4cf839203', 'answered', '2026-01-06 04:58:17.501821+00', NULL, false);
INSERT INTO public.message VALUES (9, 'p_f7b441df5a1340c1', 'out', 'assistant', 'command', 'Okay, you''re unsubscribed: you won''t get any more daily nudges, reminders or check-ins from this study. If you change your mind, send START. Send HELP for information.', '{}', 'dry-9cdebdddeacc0762', 'sent', '2026-01-06 04:58:18.110605+00', '2026-01-06 04:58:18.441754+00', false);
INSERT INTO public.message VALUES (10, 'p_1dd9539d11808ef5', 'in', 'user', 'text', 'STOP', '{}', 'sim-01d69b2eb2d2c783', 'answered', '2026-01-06 04:58:33.163503+00', NULL, false);
INSERT INTO public.message VALUES (11, 'p_1dd9539d11808ef5', 'out', 'assistant', 'command', 'Okay, you''re unsubscribed: you won''t get any more daily nudges, reminders or check-ins from this study. If you change your mind, send START. Send HELP for information.', '{}', 'dry-94a6cc364c790490', 'sent', '2026-01-06 04:58:34.261738+00', '2026-01-06 04:58:34.280843+00', false);
INSERT INTO public.message VALUES (12, 'p_1dd9539d11808ef5', 'in', 'user', 'text', 'START', '{}', 'sim-6ffdc521f99aa3ec', 'answered', '2026-01-06 04:58:44.079329+00', NULL, false);
INSERT INTO public.message VALUES (13, 'p_1dd9539d11808ef5', 'out', 'assistant', 'command', 'Welcome back! Your daily nudges are switched on again.', '{}', 'dry-cc251b6148aa4d44', 'sent', '2026-01-06 04:58:45.17397+00', '2026-01-06 04:58:45.275095+00', false);


--
-- Data for Name: outbox; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.outbox VALUES (1, 'reply:1', 'p_9faa7597eb53414c', 1, 'sent', 1, '2026-01-06 04:57:44.84321+00', '2026-01-06 04:57:44.937653+00', '2026-01-06 04:57:44.972438+00', 'dry-779db80aa573226c', NULL, '2026-01-06 04:57:44.84321+00', NULL);
INSERT INTO public.outbox VALUES (2, 'reply:2', 'p_f7b441df5a1340c1', 2, 'sent', 1, '2026-01-06 04:57:50.347304+00', '2026-01-06 04:57:50.384135+00', '2026-01-06 04:57:50.389006+00', 'dry-e6b6d76f9621ab16', NULL, '2026-01-06 04:57:50.347304+00', NULL);
INSERT INTO public.outbox VALUES (3, 'reply:3', 'p_0ff469801d9e15a8', 3, 'sent', 1, '2026-01-06 04:57:54.99986+00', '2026-01-06 04:57:55.06158+00', '2026-01-06 04:57:55.070168+00', 'dry-f3feb0fd8f199a08', NULL, '2026-01-06 04:57:54.99986+00', NULL);
INSERT INTO public.outbox VALUES (4, 'reply:4', 'p_b07a9fc1c17001c7', 4, 'sent', 1, '2026-01-06 04:57:59.064308+00', '2026-01-06 04:57:59.087668+00', '2026-01-06 04:57:59.105934+00', 'dry-b9a05ef2a3ae043f', NULL, '2026-01-06 04:57:59.064308+00', NULL);
INSERT INTO public.outbox VALUES (5, 'reply:5', 'p_1dd9539d11808ef5', 5, 'sent', 1, '2026-01-06 04:58:04.913093+00', '2026-01-06 04:58:04.981514+00', '2026-01-06 04:58:05.069966+00', 'dry-2ac5af73d67944d3', NULL, '2026-01-06 04:58:04.913093+00', NULL);
INSERT INTO public.outbox VALUES (6, 'reply:6', 'p_9faa7597eb53414c', 7, 'sent', 1, '2026-01-06 04:58:11.507055+00', '2026-01-06 04:58:11.583197+00', '2026-01-06 04:58:11.590145+00', 'dry-f47c0cb223481e39', NULL, '2026-01-06 04:58:11.507055+00', NULL);
INSERT INTO public.outbox VALUES (7, 'command-reply:7', 'p_f7b441df5a1340c1', 9, 'sent', 1, '2026-01-06 04:58:18.110605+00', '2026-01-06 04:58:18.38865+00', '2026-01-06 04:58:18.441754+00', 'dry-9cdebdddeacc0762', NULL, '2026-01-06 04:58:18.110605+00', NULL);
INSERT INTO public.outbox VALUES (8, 'command-reply:10', 'p_1dd9539d11808ef5', 11, 'sent', 1, '2026-01-06 04:58:34.261738+00', '2026-01-06 04:58:34.274742+00', '2026-01-06 04:58:34.280843+00', 'dry-94a6cc364c790490', NULL, '2026-01-06 04:58:34.261738+00', NULL);
INSERT INTO public.outbox VALUES (9, 'command-reply:11', 'p_1dd9539d11808ef5', 13, 'sent', 1, '2026-01-06 04:58:45.17397+00', '2026-01-06 04:58:45.226265+00', '2026-01-06 04:58:45.275095+00', 'dry-cc251b6148aa4d44', NULL, '2026-01-06 04:58:45.17397+00', NULL);


--
-- Data for Name: participant; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.participant VALUES ('p_9faa7597eb53414c', '+14165550140', NULL, 'Ana', 'America/Toronto', 'active', false, false, NULL, '', '2026-01-06 04:57:43.010549+00', '2026-01-06 04:58:11.507055+00', NULL, NULL, 'default', '{}', '2026-01-06', 0, NULL);
INSERT INTO public.participant VALUES ('p_f7b441df5a1340c1', '+14165550141', NULL, 'Ben', 'America/Toronto', 'paused', true, false, 'participant', '', '2026-01-06 04:57:49.63488+00', '2026-01-06 04:58:18.110605+00', NULL, NULL, 'default', '{}', NULL, 0, NULL);
INSERT INTO public.participant VALUES ('p_0ff469801d9e15a8', '+14165550142', NULL, 'Cleo', 'America/Toronto', 'paused', false, true, 'researcher', '', '2026-01-06 04:57:53.513851+00', '2026-01-06 04:58:22.431079+00', NULL, NULL, 'default', '{}', NULL, 0, NULL);
INSERT INTO public.participant VALUES ('p_b07a9fc1c17001c7', '+14165550143', NULL, 'Dev', 'America/Toronto', 'withdrawn', false, false, NULL, '', '2026-01-06 04:57:58.555353+00', '2026-01-06 04:58:27.598993+00', NULL, NULL, 'default', '{}', NULL, 0, NULL);
INSERT INTO public.participant VALUES ('p_1dd9539d11808ef5', '+14165550144', NULL, 'Eli', 'America/Toronto', 'active', false, false, NULL, '', '2026-01-06 04:58:03.560996+00', '2026-01-06 04:58:45.17397+00', NULL, NULL, 'default', '{}', NULL, 0, NULL);


--
-- Data for Name: prompt_delivery; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: receipt; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: schedule; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.schedule VALUES ('s_f8f4aa67', 'p_9faa7597eb53414c', 'fixed', '00:01', NULL, NULL, 0, true, '2026-01-06 04:58:11.507055+00', '2026-01-06 04:58:11.507055+00');


--
-- Data for Name: self_report; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: service_status; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: study_protocol; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.study_protocol VALUES (1, 'Upgrade fixture', '553b57c6aead215c9957e24c8d144b810b5ba754bd829dd4d8cacd69ead930d4', 'name = "Upgrade fixture"
length_days = 14
day_one = "after_intake"

[decision]
actions = ["send", "no_send"]
p = 0.5
', NULL, '2026-01-06 04:57:43.010549+00', 'first use (admin script, root)');


--
-- Data for Name: study_secret; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.study_secret VALUES ('seed', '1bb3483e0c75b2cccf04cd1466b389130ae035efe854ff670e0ec1516351718e', '2026-01-06 04:57:43.010549+00');
INSERT INTO public.study_secret VALUES ('allocation_scheme', 'hmac-sha256-v1', '2026-01-06 04:57:43.010549+00');


--
-- Data for Name: timer; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.timer VALUES (1, 'p_9faa7597eb53414c', 'intake_inactive', '2026-01-06 05:27:44.843065+00', '{}', 'cancelled', 'now in FEEDBACK', '2026-01-06 04:57:44.84321+00', '2026-01-06 04:58:11.507055+00');
INSERT INTO public.timer VALUES (6, 'p_9faa7597eb53414c', 'study_end', '2026-01-20 05:00:00+00', '{"last_day": 14}', 'pending', 'end of study day 14', '2026-01-06 04:58:11.507055+00', NULL);
INSERT INTO public.timer VALUES (7, 'p_9faa7597eb53414c', 'feedback_check_in', '2026-01-06 05:13:11.507055+00', '{}', 'pending', 'entered FEEDBACK', '2026-01-06 04:58:11.507055+00', NULL);
INSERT INTO public.timer VALUES (2, 'p_f7b441df5a1340c1', 'intake_inactive', '2026-01-06 05:27:50.347205+00', '{}', 'cancelled', 'status changed: opted_out', '2026-01-06 04:57:50.347304+00', '2026-01-06 04:58:18.110605+00');
INSERT INTO public.timer VALUES (3, 'p_0ff469801d9e15a8', 'intake_inactive', '2026-01-06 05:27:54.999749+00', '{}', 'cancelled', 'status changed: paused_by_researcher', '2026-01-06 04:57:54.99986+00', '2026-01-06 04:58:22.431079+00');
INSERT INTO public.timer VALUES (4, 'p_b07a9fc1c17001c7', 'intake_inactive', '2026-01-06 05:27:59.064211+00', '{}', 'cancelled', 'status changed: withdrawn_by_researcher', '2026-01-06 04:57:59.064308+00', '2026-01-06 04:58:27.598993+00');
INSERT INTO public.timer VALUES (5, 'p_1dd9539d11808ef5', 'intake_inactive', '2026-01-06 05:28:04.913004+00', '{}', 'cancelled', 'status changed: opted_out', '2026-01-06 04:58:04.913093+00', '2026-01-06 04:58:34.261738+00');


--
-- Data for Name: tone_event; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: transition; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.transition VALUES (1, 'p_9faa7597eb53414c', 'status', 'enrolled', NULL, 'active', 'enrolled by a researcher', 'researcher', '2026-01-06 04:57:43.010549+00');
INSERT INTO public.transition VALUES (2, 'p_f7b441df5a1340c1', 'status', 'enrolled', NULL, 'active', 'enrolled by a researcher', 'researcher', '2026-01-06 04:57:49.63488+00');
INSERT INTO public.transition VALUES (3, 'p_0ff469801d9e15a8', 'status', 'enrolled', NULL, 'active', 'enrolled by a researcher', 'researcher', '2026-01-06 04:57:53.513851+00');
INSERT INTO public.transition VALUES (4, 'p_b07a9fc1c17001c7', 'status', 'enrolled', NULL, 'active', 'enrolled by a researcher', 'researcher', '2026-01-06 04:57:58.555353+00');
INSERT INTO public.transition VALUES (5, 'p_1dd9539d11808ef5', 'status', 'enrolled', NULL, 'active', 'enrolled by a researcher', 'researcher', '2026-01-06 04:58:03.560996+00');
INSERT INTO public.transition VALUES (6, 'p_9faa7597eb53414c', 'sub_state', 'intake_to_feedback', 'INTAKE', 'FEEDBACK', 'the plan is set', 'model', '2026-01-06 04:58:11.507055+00');
INSERT INTO public.transition VALUES (7, 'p_9faa7597eb53414c', 'study', 'study_started', NULL, '2026-01-06', 'study day 1 is the day after intake was completed', 'server', '2026-01-06 04:58:11.507055+00');
INSERT INTO public.transition VALUES (8, 'p_f7b441df5a1340c1', 'status', 'opted_out', 'active', 'paused', 'participant asked to stop: consent to messages withdrawn', 'participant', '2026-01-06 04:58:18.110605+00');
INSERT INTO public.transition VALUES (9, 'p_0ff469801d9e15a8', 'status', 'paused_by_researcher', 'active', 'paused', 'on holiday', 'researcher', '2026-01-06 04:58:22.431079+00');
INSERT INTO public.transition VALUES (10, 'p_b07a9fc1c17001c7', 'status', 'withdrawn_by_researcher', 'active', 'withdrawn', 'moved away', 'researcher', '2026-01-06 04:58:27.598993+00');
INSERT INTO public.transition VALUES (11, 'p_1dd9539d11808ef5', 'status', 'opted_out', 'active', 'paused', 'participant asked to stop: consent to messages withdrawn', 'participant', '2026-01-06 04:58:34.261738+00');
INSERT INTO public.transition VALUES (12, 'p_1dd9539d11808ef5', 'status', 'opted_in', 'paused', 'active', 'participant sent START', 'participant', '2026-01-06 04:58:45.17397+00');


--
-- Name: api_token_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.api_token_id_seq', 1, true);


--
-- Name: audit_log_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.audit_log_id_seq', 1, false);


--
-- Name: consent_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.consent_id_seq', 10, true);


--
-- Name: decision_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.decision_id_seq', 1, true);


--
-- Name: flag_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.flag_id_seq', 1, false);


--
-- Name: inbox_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.inbox_id_seq', 12, true);


--
-- Name: message_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.message_id_seq', 13, true);


--
-- Name: outbox_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.outbox_id_seq', 9, true);


--
-- Name: prompt_delivery_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.prompt_delivery_id_seq', 1, false);


--
-- Name: receipt_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.receipt_id_seq', 1, false);


--
-- Name: self_report_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.self_report_id_seq', 1, false);


--
-- Name: study_protocol_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.study_protocol_id_seq', 1, true);


--
-- Name: timer_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.timer_id_seq', 7, true);


--
-- Name: tone_event_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.tone_event_id_seq', 1, false);


--
-- Name: transition_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.transition_id_seq', 12, true);


--
-- Name: allocation allocation_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.allocation
    ADD CONSTRAINT allocation_pkey PRIMARY KEY (participant_id);


--
-- Name: api_token api_token_name_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.api_token
    ADD CONSTRAINT api_token_name_key UNIQUE (name);


--
-- Name: api_token api_token_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.api_token
    ADD CONSTRAINT api_token_pkey PRIMARY KEY (id);


--
-- Name: api_token api_token_token_hash_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.api_token
    ADD CONSTRAINT api_token_token_hash_key UNIQUE (token_hash);


--
-- Name: apscheduler_jobs apscheduler_jobs_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.apscheduler_jobs
    ADD CONSTRAINT apscheduler_jobs_pkey PRIMARY KEY (id);


--
-- Name: audit_log audit_log_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.audit_log
    ADD CONSTRAINT audit_log_pkey PRIMARY KEY (id);


--
-- Name: consent consent_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.consent
    ADD CONSTRAINT consent_pkey PRIMARY KEY (id);


--
-- Name: conversation conversation_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.conversation
    ADD CONSTRAINT conversation_pkey PRIMARY KEY (participant_id);


--
-- Name: decision decision_inbox_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.decision
    ADD CONSTRAINT decision_inbox_id_key UNIQUE (inbox_id);


--
-- Name: decision decision_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.decision
    ADD CONSTRAINT decision_pkey PRIMARY KEY (id);


--
-- Name: flag flag_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.flag
    ADD CONSTRAINT flag_pkey PRIMARY KEY (id);


--
-- Name: inbox inbox_key_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.inbox
    ADD CONSTRAINT inbox_key_key UNIQUE (key);


--
-- Name: inbox inbox_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.inbox
    ADD CONSTRAINT inbox_pkey PRIMARY KEY (id);


--
-- Name: lid_mapping lid_mapping_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.lid_mapping
    ADD CONSTRAINT lid_mapping_pkey PRIMARY KEY (lid);


--
-- Name: message message_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.message
    ADD CONSTRAINT message_pkey PRIMARY KEY (id);


--
-- Name: outbox outbox_key_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.outbox
    ADD CONSTRAINT outbox_key_key UNIQUE (key);


--
-- Name: outbox outbox_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.outbox
    ADD CONSTRAINT outbox_pkey PRIMARY KEY (id);


--
-- Name: participant participant_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.participant
    ADD CONSTRAINT participant_pkey PRIMARY KEY (id);


--
-- Name: prompt_delivery prompt_delivery_inbox_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.prompt_delivery
    ADD CONSTRAINT prompt_delivery_inbox_id_key UNIQUE (inbox_id);


--
-- Name: prompt_delivery prompt_delivery_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.prompt_delivery
    ADD CONSTRAINT prompt_delivery_pkey PRIMARY KEY (id);


--
-- Name: receipt receipt_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.receipt
    ADD CONSTRAINT receipt_pkey PRIMARY KEY (id);


--
-- Name: schedule schedule_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.schedule
    ADD CONSTRAINT schedule_pkey PRIMARY KEY (id);


--
-- Name: self_report self_report_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.self_report
    ADD CONSTRAINT self_report_pkey PRIMARY KEY (id);


--
-- Name: service_status service_status_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.service_status
    ADD CONSTRAINT service_status_pkey PRIMARY KEY (name);


--
-- Name: study_protocol study_protocol_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.study_protocol
    ADD CONSTRAINT study_protocol_pkey PRIMARY KEY (id);


--
-- Name: study_secret study_secret_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.study_secret
    ADD CONSTRAINT study_secret_pkey PRIMARY KEY (name);


--
-- Name: timer timer_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.timer
    ADD CONSTRAINT timer_pkey PRIMARY KEY (id);


--
-- Name: tone_event tone_event_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.tone_event
    ADD CONSTRAINT tone_event_pkey PRIMARY KEY (id);


--
-- Name: transition transition_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.transition
    ADD CONSTRAINT transition_pkey PRIMARY KEY (id);


--
-- Name: allocation uq_allocation_stratum_sequence; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.allocation
    ADD CONSTRAINT uq_allocation_stratum_sequence UNIQUE (stratum, sequence);


--
-- Name: receipt uq_receipt_message_kind; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.receipt
    ADD CONSTRAINT uq_receipt_message_kind UNIQUE (wa_message_id, kind);


--
-- Name: self_report uq_self_report_day; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.self_report
    ADD CONSTRAINT uq_self_report_day UNIQUE (participant_id, local_date);


--
-- Name: ix_apscheduler_jobs_next_run_time; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_apscheduler_jobs_next_run_time ON public.apscheduler_jobs USING btree (next_run_time);


--
-- Name: ix_audit_log_participant; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_audit_log_participant ON public.audit_log USING btree (participant_id, id);


--
-- Name: ix_consent_participant_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_consent_participant_id ON public.consent USING btree (participant_id);


--
-- Name: ix_decision_participant_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_decision_participant_id ON public.decision USING btree (participant_id, id);


--
-- Name: ix_flag_participant_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_flag_participant_id ON public.flag USING btree (participant_id);


--
-- Name: ix_flag_status_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_flag_status_id ON public.flag USING btree (status, id);


--
-- Name: ix_inbox_participant_status; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_inbox_participant_status ON public.inbox USING btree (participant_id, status, id);


--
-- Name: ix_inbox_status_available; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_inbox_status_available ON public.inbox USING btree (status, available_at);


--
-- Name: ix_lid_mapping_phone; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_lid_mapping_phone ON public.lid_mapping USING btree (phone);


--
-- Name: ix_message_participant_direction_created; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_message_participant_direction_created ON public.message USING btree (participant_id, direction, created_at);


--
-- Name: ix_message_participant_id_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_message_participant_id_id ON public.message USING btree (participant_id, id);


--
-- Name: ix_message_wa_message_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_message_wa_message_id ON public.message USING btree (wa_message_id);


--
-- Name: ix_outbox_participant_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_outbox_participant_id ON public.outbox USING btree (participant_id, id);


--
-- Name: ix_outbox_status_available; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_outbox_status_available ON public.outbox USING btree (status, available_at);


--
-- Name: ix_participant_lid; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_participant_lid ON public.participant USING btree (lid);


--
-- Name: ix_participant_phone; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX ix_participant_phone ON public.participant USING btree (phone);


--
-- Name: ix_prompt_delivery_day_counts; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_prompt_delivery_day_counts ON public.prompt_delivery USING btree (local_date, participant_id, vote, replied_at, prompt_message_id);


--
-- Name: ix_prompt_delivery_participant_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_prompt_delivery_participant_id ON public.prompt_delivery USING btree (participant_id, id);


--
-- Name: ix_prompt_delivery_poll_message_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_prompt_delivery_poll_message_id ON public.prompt_delivery USING btree (poll_message_id);


--
-- Name: ix_prompt_delivery_sent_at; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_prompt_delivery_sent_at ON public.prompt_delivery USING btree (sent_at);


--
-- Name: ix_receipt_wa_message_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_receipt_wa_message_id ON public.receipt USING btree (wa_message_id);


--
-- Name: ix_schedule_participant_active; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_schedule_participant_active ON public.schedule USING btree (participant_id, active);


--
-- Name: ix_self_report_poll_message_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_self_report_poll_message_id ON public.self_report USING btree (poll_message_id);


--
-- Name: ix_timer_participant_status; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_timer_participant_status ON public.timer USING btree (participant_id, status);


--
-- Name: ix_timer_status_due; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_timer_status_due ON public.timer USING btree (status, due_at);


--
-- Name: ix_tone_event_participant_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_tone_event_participant_id ON public.tone_event USING btree (participant_id);


--
-- Name: ix_transition_participant_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_transition_participant_id ON public.transition USING btree (participant_id);


--
-- Name: allocation allocation_participant_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.allocation
    ADD CONSTRAINT allocation_participant_id_fkey FOREIGN KEY (participant_id) REFERENCES public.participant(id);


--
-- Name: consent consent_participant_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.consent
    ADD CONSTRAINT consent_participant_id_fkey FOREIGN KEY (participant_id) REFERENCES public.participant(id);


--
-- Name: conversation conversation_participant_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.conversation
    ADD CONSTRAINT conversation_participant_id_fkey FOREIGN KEY (participant_id) REFERENCES public.participant(id);


--
-- Name: decision decision_participant_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.decision
    ADD CONSTRAINT decision_participant_id_fkey FOREIGN KEY (participant_id) REFERENCES public.participant(id);


--
-- Name: decision decision_prompt_message_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.decision
    ADD CONSTRAINT decision_prompt_message_id_fkey FOREIGN KEY (prompt_message_id) REFERENCES public.message(id);


--
-- Name: flag flag_message_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.flag
    ADD CONSTRAINT flag_message_id_fkey FOREIGN KEY (message_id) REFERENCES public.message(id);


--
-- Name: flag flag_participant_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.flag
    ADD CONSTRAINT flag_participant_id_fkey FOREIGN KEY (participant_id) REFERENCES public.participant(id);


--
-- Name: inbox inbox_message_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.inbox
    ADD CONSTRAINT inbox_message_id_fkey FOREIGN KEY (message_id) REFERENCES public.message(id);


--
-- Name: inbox inbox_participant_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.inbox
    ADD CONSTRAINT inbox_participant_id_fkey FOREIGN KEY (participant_id) REFERENCES public.participant(id);


--
-- Name: message message_participant_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.message
    ADD CONSTRAINT message_participant_id_fkey FOREIGN KEY (participant_id) REFERENCES public.participant(id);


--
-- Name: outbox outbox_message_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.outbox
    ADD CONSTRAINT outbox_message_id_fkey FOREIGN KEY (message_id) REFERENCES public.message(id);


--
-- Name: outbox outbox_participant_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.outbox
    ADD CONSTRAINT outbox_participant_id_fkey FOREIGN KEY (participant_id) REFERENCES public.participant(id);


--
-- Name: prompt_delivery prompt_delivery_participant_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.prompt_delivery
    ADD CONSTRAINT prompt_delivery_participant_id_fkey FOREIGN KEY (participant_id) REFERENCES public.participant(id);


--
-- Name: prompt_delivery prompt_delivery_poll_message_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.prompt_delivery
    ADD CONSTRAINT prompt_delivery_poll_message_id_fkey FOREIGN KEY (poll_message_id) REFERENCES public.message(id);


--
-- Name: prompt_delivery prompt_delivery_prompt_message_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.prompt_delivery
    ADD CONSTRAINT prompt_delivery_prompt_message_id_fkey FOREIGN KEY (prompt_message_id) REFERENCES public.message(id);


--
-- Name: schedule schedule_participant_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.schedule
    ADD CONSTRAINT schedule_participant_id_fkey FOREIGN KEY (participant_id) REFERENCES public.participant(id);


--
-- Name: self_report self_report_participant_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.self_report
    ADD CONSTRAINT self_report_participant_id_fkey FOREIGN KEY (participant_id) REFERENCES public.participant(id);


--
-- Name: self_report self_report_poll_message_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.self_report
    ADD CONSTRAINT self_report_poll_message_id_fkey FOREIGN KEY (poll_message_id) REFERENCES public.message(id);


--
-- Name: timer timer_participant_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.timer
    ADD CONSTRAINT timer_participant_id_fkey FOREIGN KEY (participant_id) REFERENCES public.participant(id);


--
-- Name: tone_event tone_event_participant_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.tone_event
    ADD CONSTRAINT tone_event_participant_id_fkey FOREIGN KEY (participant_id) REFERENCES public.participant(id);


--
-- Name: transition transition_participant_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.transition
    ADD CONSTRAINT transition_participant_id_fkey FOREIGN KEY (participant_id) REFERENCES public.participant(id);


--
-- PostgreSQL database dump complete
--

\unrestrict Zm08FP6ZEDl0Pn1ytRuQBn7ohaR2YQVZEPHwzBDhAPD5gO3350Fe6i0EVm1NHx4

