--
-- PostgreSQL database dump
--

\restrict L0tkX87sxqYV9hDRnJeb3ANelKCzVEVoyzXbUP4qlOOGYczBrKkdwEXL8a5dUNY

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
-- Name: apscheduler_jobs; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.apscheduler_jobs (
    id character varying(191) NOT NULL,
    next_run_time double precision,
    job_state bytea NOT NULL
);


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
    created_at timestamp with time zone NOT NULL
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
    erased_by character varying
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
-- Name: service_status; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.service_status (
    name character varying NOT NULL,
    value jsonb NOT NULL,
    updated_at timestamp with time zone NOT NULL
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
-- Name: consent id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.consent ALTER COLUMN id SET DEFAULT nextval('public.consent_id_seq'::regclass);


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
-- Data for Name: apscheduler_jobs; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.apscheduler_jobs VALUES ('daily:p_fbb20a87e70cd405:s_ffe85ac1', 1767762060, '\x80059554020000000000007d94288c0776657273696f6e944b018c026964948c236461696c793a705f666262323061383765373063643430353a735f6666653835616331948c0466756e63948c2b70726f6d7074706970652e7363686564756c696e672e6a6f62733a6461696c795f70726f6d70745f647565948c0774726967676572948c1d70726f6d7074706970652e7363686564756c696e672e74726967676572948c124461696c7950726f6d7074547269676765729493942981947d942868014b018c046b696e64948c056669786564948c0a68616269745f74696d65948c0530303a3031948c0c77696e646f775f7374617274944e8c0a77696e646f775f656e64944e8c0c707265705f6d696e75746573944b008c0473656564948c0a735f6666653835616331948c047a6f6e65948c0f416d65726963612f546f726f6e746f9475628c086578656375746f72948c0764656661756c74948c046172677394298c066b7761726773947d94288c0e7061727469636970616e745f6964948c12705f66626232306138376537306364343035948c0b7363686564756c655f6964946814758c046e616d65948c106461696c795f70726f6d70745f647565948c126d6973666972655f67726163655f74696d65944d100e8c08636f616c6573636594888c0d6d61785f696e7374616e636573944b018c0d6e6578745f72756e5f74696d65948c086461746574696d65948c086461746574696d65949394430a07ea01070501000000009468258c0874696d657a6f6e6594939468258c0974696d6564656c74619493944b004b004b00879452948594529486945294752e');
INSERT INTO public.apscheduler_jobs VALUES ('reminder:p_fbb20a87e70cd405', 1767693661.147816, '\x800595bd010000000000007d94288c0776657273696f6e944b018c026964948c1b72656d696e6465723a705f66626232306138376537306364343035948c0466756e63948c2470726f6d7074706970652e7363686564756c696e672e6a6f62733a74696d65725f647565948c0774726967676572948c1961707363686564756c65722e74726967676572732e64617465948c0b44617465547269676765729493942981947d942868014b018c0872756e5f64617465948c086461746574696d65948c086461746574696d65949394430a07ea01060a010102416894680d8c0874696d657a6f6e65949394680d8c0974696d6564656c74619493944b004b004b0087945294859452948694529475628c086578656375746f72948c0764656661756c74948c046172677394298c066b7761726773947d94288c0e7061727469636970616e745f6964948c12705f66626232306138376537306364343035948c0874696d65725f6964944b02758c046e616d65948c0974696d65725f647565948c126d6973666972655f67726163655f74696d65944d100e8c08636f616c6573636594888c0d6d61785f696e7374616e636573944b018c0d6e6578745f72756e5f74696d6594681a752e');
INSERT INTO public.apscheduler_jobs VALUES ('feedback_check_in:p_fbb20a87e70cd405', 1767676561.147816, '\x800595c6010000000000007d94288c0776657273696f6e944b018c026964948c24666565646261636b5f636865636b5f696e3a705f66626232306138376537306364343035948c0466756e63948c2470726f6d7074706970652e7363686564756c696e672e6a6f62733a74696d65725f647565948c0774726967676572948c1961707363686564756c65722e74726967676572732e64617465948c0b44617465547269676765729493942981947d942868014b018c0872756e5f64617465948c086461746574696d65948c086461746574696d65949394430a07ea010605100102416894680d8c0874696d657a6f6e65949394680d8c0974696d6564656c74619493944b004b004b0087945294859452948694529475628c086578656375746f72948c0764656661756c74948c046172677394298c066b7761726773947d94288c0e7061727469636970616e745f6964948c12705f66626232306138376537306364343035948c0874696d65725f6964944b03758c046e616d65948c0974696d65725f647565948c126d6973666972655f67726163655f74696d65944d100e8c08636f616c6573636594888c0d6d61785f696e7374616e636573944b018c0d6e6578745f72756e5f74696d6594681a752e');


--
-- Data for Name: consent; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.consent VALUES (1, 'p_fbb20a87e70cd405', 'enrolled', 'researcher', 'root', 'enrolled by a researcher', '2026-01-06 04:57:32.323389+00');
INSERT INTO public.consent VALUES (2, 'p_21dad5a666ebff68', 'enrolled', 'researcher', 'root', 'enrolled by a researcher', '2026-01-06 04:57:35.261867+00');
INSERT INTO public.consent VALUES (3, 'p_092ac36e1b3c9bb3', 'enrolled', 'researcher', 'root', 'enrolled by a researcher', '2026-01-06 04:57:36.9467+00');
INSERT INTO public.consent VALUES (4, 'p_616b1020f2d32a35', 'enrolled', 'researcher', 'root', 'enrolled by a researcher', '2026-01-06 04:57:38.371015+00');
INSERT INTO public.consent VALUES (5, 'p_65a190e133a61ba7', 'enrolled', 'researcher', 'root', 'enrolled by a researcher', '2026-01-06 04:57:39.830726+00');
INSERT INTO public.consent VALUES (6, 'p_21dad5a666ebff68', 'opted_out', 'participant', '', 'STOP', '2026-01-06 04:57:47.679667+00');
INSERT INTO public.consent VALUES (7, 'p_092ac36e1b3c9bb3', 'paused', 'researcher', 'root', 'on holiday', '2026-01-06 04:57:49.920583+00');
INSERT INTO public.consent VALUES (8, 'p_616b1020f2d32a35', 'withdrawn', 'researcher', 'root', 'moved away', '2026-01-06 04:57:52.90188+00');
INSERT INTO public.consent VALUES (9, 'p_65a190e133a61ba7', 'opted_out', 'participant', '', 'STOP', '2026-01-06 04:57:57.380646+00');
INSERT INTO public.consent VALUES (10, 'p_65a190e133a61ba7', 'opted_in', 'participant', '', 'START', '2026-01-06 04:58:00.423204+00');


--
-- Data for Name: conversation; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.conversation VALUES ('p_21dad5a666ebff68', 'INTAKE', '{}', '{}', '', 0, 1, 3, '2026-01-06 04:57:47.679667+00');
INSERT INTO public.conversation VALUES ('p_092ac36e1b3c9bb3', 'INTAKE', '{}', '{}', '', 0, 1, 3, '2026-01-06 04:57:49.920583+00');
INSERT INTO public.conversation VALUES ('p_616b1020f2d32a35', 'INTAKE', '{}', '{}', '', 0, 1, 3, '2026-01-06 04:57:52.90188+00');
INSERT INTO public.conversation VALUES ('p_65a190e133a61ba7', 'INTAKE', '{}', '{}', '', 0, 1, 4, '2026-01-06 04:58:00.423204+00');
INSERT INTO public.conversation VALUES ('p_fbb20a87e70cd405', 'FEEDBACK', '{"counters": {"misses": 0, "successes": 0, "best_streak": 0, "prompts_sent": 1, "current_streak": 0, "last_miss_date": null, "last_success_date": null}, "updated_at": "2026-01-06T04:57:44.114280+00:00", "habit_domain": "walking", "prompt_anchor": "after dinner", "preferred_time": "00:01", "last_prompt_vote": null, "last_habit_prompt": "Walk around the block right after dinner tonight: ten minutes is plenty.", "motivational_frame": "to sleep better", "intensity_poll_date": "2026-01-06", "last_prompt_sent_at": "2026-01-06T05:01:01.147816+00:00", "intensity_poll_message": 16}', '{}', '', 0, 2, 4, '2026-01-06 05:01:01.159943+00');


--
-- Data for Name: flag; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: inbox; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.inbox VALUES (1, 'enroll:p_fbb20a87e70cd405', 'p_fbb20a87e70cd405', 'enroll', '{}', NULL, 'done', 0, '2026-01-06 04:57:32.323389+00', '2026-01-06 04:57:32.323389+00', '2026-01-06 04:57:34.862386+00', NULL);
INSERT INTO public.inbox VALUES (2, 'enroll:p_21dad5a666ebff68', 'p_21dad5a666ebff68', 'enroll', '{}', NULL, 'done', 0, '2026-01-06 04:57:35.261867+00', '2026-01-06 04:57:35.261867+00', '2026-01-06 04:57:36.441851+00', NULL);
INSERT INTO public.inbox VALUES (3, 'enroll:p_092ac36e1b3c9bb3', 'p_092ac36e1b3c9bb3', 'enroll', '{}', NULL, 'done', 0, '2026-01-06 04:57:36.9467+00', '2026-01-06 04:57:36.9467+00', '2026-01-06 04:57:37.476377+00', NULL);
INSERT INTO public.inbox VALUES (4, 'enroll:p_616b1020f2d32a35', 'p_616b1020f2d32a35', 'enroll', '{}', NULL, 'done', 0, '2026-01-06 04:57:38.371015+00', '2026-01-06 04:57:38.371015+00', '2026-01-06 04:57:39.023286+00', NULL);
INSERT INTO public.inbox VALUES (5, 'enroll:p_65a190e133a61ba7', 'p_65a190e133a61ba7', 'enroll', '{}', NULL, 'done', 0, '2026-01-06 04:57:39.830726+00', '2026-01-06 04:57:39.830726+00', '2026-01-06 04:57:40.585443+00', NULL);
INSERT INTO public.inbox VALUES (6, 'wa:sim-29dbb813a31fc876', 'p_fbb20a87e70cd405', 'message', '{"wa_message_id": "sim-29dbb813a31fc876"}', 6, 'done', 0, '2026-01-06 04:57:43.518085+00', '2026-01-06 04:57:43.518085+00', '2026-01-06 04:57:44.217378+00', NULL);
INSERT INTO public.inbox VALUES (7, 'wa:sim-f48a3a8b2e15339d', 'p_21dad5a666ebff68', 'message', '{"wa_message_id": "sim-f48a3a8b2e15339d"}', 8, 'done', 0, '2026-01-06 04:57:46.871035+00', '2026-01-06 04:57:46.871035+00', '2026-01-06 04:57:47.679667+00', NULL);
INSERT INTO public.inbox VALUES (8, 'sync:p_092ac36e1b3c9bb3:38056c41', 'p_092ac36e1b3c9bb3', 'sync', '{}', NULL, 'done', 0, '2026-01-06 04:57:49.920583+00', '2026-01-06 04:57:49.920583+00', '2026-01-06 04:57:50.767344+00', NULL);
INSERT INTO public.inbox VALUES (9, 'sync:p_616b1020f2d32a35:f609c0df', 'p_616b1020f2d32a35', 'sync', '{}', NULL, 'done', 0, '2026-01-06 04:57:52.90188+00', '2026-01-06 04:57:52.90188+00', '2026-01-06 04:57:53.800034+00', NULL);
INSERT INTO public.inbox VALUES (10, 'wa:sim-90042d002b72c166', 'p_65a190e133a61ba7', 'message', '{"wa_message_id": "sim-90042d002b72c166"}', 10, 'done', 0, '2026-01-06 04:57:56.034899+00', '2026-01-06 04:57:56.034899+00', '2026-01-06 04:57:57.380646+00', NULL);
INSERT INTO public.inbox VALUES (11, 'wa:sim-f0e770861dad6c8a', 'p_65a190e133a61ba7', 'message', '{"wa_message_id": "sim-f0e770861dad6c8a"}', 12, 'done', 0, '2026-01-06 04:57:59.903766+00', '2026-01-06 04:57:59.903766+00', '2026-01-06 04:58:00.423204+00', NULL);
INSERT INTO public.inbox VALUES (12, 'prompt:p_fbb20a87e70cd405:s_ffe85ac1:2026-01-06', 'p_fbb20a87e70cd405', 'daily_prompt', '{"due_at": "2026-01-06T05:01:00+00:00", "local_date": "2026-01-06", "schedule_id": "s_ffe85ac1"}', NULL, 'done', 0, '2026-01-06 05:01:00.009583+00', '2026-01-06 05:01:00.009583+00', '2026-01-06 05:01:01.159943+00', NULL);


--
-- Data for Name: lid_mapping; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: message; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.message VALUES (1, 'p_fbb20a87e70cd405', 'out', 'assistant', 'greeting', 'Walk around the block right after dinner tonight: ten minutes is plenty.', '{}', 'dry-7ed5c282139cac39', 'sent', '2026-01-06 04:57:34.862386+00', '2026-01-06 04:57:34.975612+00', false);
INSERT INTO public.message VALUES (2, 'p_21dad5a666ebff68', 'out', 'assistant', 'greeting', 'Walk around the block right after dinner tonight: ten minutes is plenty.', '{}', 'dry-f5f7e2adac4da4dd', 'sent', '2026-01-06 04:57:36.441851+00', '2026-01-06 04:57:36.483731+00', false);
INSERT INTO public.message VALUES (3, 'p_092ac36e1b3c9bb3', 'out', 'assistant', 'greeting', 'Walk around the block right after dinner tonight: ten minutes is plenty.', '{}', 'dry-95ed91798c2e4c72', 'sent', '2026-01-06 04:57:37.476377+00', '2026-01-06 04:57:37.507395+00', false);
INSERT INTO public.message VALUES (4, 'p_616b1020f2d32a35', 'out', 'assistant', 'greeting', 'Walk around the block right after dinner tonight: ten minutes is plenty.', '{}', 'dry-fcc270c382bb2416', 'sent', '2026-01-06 04:57:39.023286+00', '2026-01-06 04:57:39.059403+00', false);
INSERT INTO public.message VALUES (5, 'p_65a190e133a61ba7', 'out', 'assistant', 'greeting', 'Walk around the block right after dinner tonight: ten minutes is plenty.', '{}', 'dry-5c419a2163d58e29', 'sent', '2026-01-06 04:57:40.585443+00', '2026-01-06 04:57:40.593268+00', false);
INSERT INTO public.message VALUES (6, 'p_fbb20a87e70cd405', 'in', 'user', 'text', 'I''d like to walk around the block after dinner, just after midnight works', '{}', 'sim-29dbb813a31fc876', 'answered', '2026-01-06 04:57:43.518085+00', NULL, false);
INSERT INTO public.message VALUES (7, 'p_fbb20a87e70cd405', 'out', 'assistant', 'text', 'Lovely, your plan is set. I''ll nudge you each day.', '{}', 'dry-75604f7d044067e5', 'sent', '2026-01-06 04:57:44.217378+00', '2026-01-06 04:57:44.253662+00', false);
INSERT INTO public.message VALUES (8, 'p_21dad5a666ebff68', 'in', 'user', 'text', 'STOP', '{}', 'sim-f48a3a8b2e15339d', 'answered', '2026-01-06 04:57:46.871035+00', NULL, false);
INSERT INTO public.message VALUES (9, 'p_21dad5a666ebff68', 'out', 'assistant', 'command', 'Okay, you''re unsubscribed: you won''t get any more daily nudges, reminders or check-ins from this study. If you change your mind, send START. Send HELP for information.', '{}', 'dry-a339250ef59af745', 'sent', '2026-01-06 04:57:47.679667+00', '2026-01-06 04:57:47.747373+00', false);
INSERT INTO public.message VALUES (10, 'p_65a190e133a61ba7', 'in', 'user', 'text', 'STOP', '{}', 'sim-90042d002b72c166', 'answered', '2026-01-06 04:57:56.034899+00', NULL, false);
INSERT INTO public.message VALUES (11, 'p_65a190e133a61ba7', 'out', 'assistant', 'command', 'Okay, you''re unsubscribed: you won''t get any more daily nudges, reminders or check-ins from this study. If you change your mind, send START. Send HELP for information.', '{}', 'dry-6ef7e372c109ddbe', 'sent', '2026-01-06 04:57:57.380646+00', '2026-01-06 04:57:57.806723+00', false);
INSERT INTO public.message VALUES (12, 'p_65a190e133a61ba7', 'in', 'user', 'text', 'START', '{}', 'sim-f0e770861dad6c8a', 'answered', '2026-01-06 04:57:59.903766+00', NULL, false);
INSERT INTO public.message VALUES (13, 'p_65a190e133a61ba7', 'out', 'assistant', 'command', 'Welcome back! Your daily nudges are switched on again.', '{}', 'dry-189991b961e873a0', 'sent', '2026-01-06 04:58:00.423204+00', '2026-01-06 04:58:00.438854+00', false);
INSERT INTO public.message VALUES (14, 'p_fbb20a87e70cd405', 'out', 'assistant', 'prompt', 'Walk around the block right after dinner tonight: ten minutes is plenty.', '{}', 'dry-fbb13d2f77dc13f3', 'sent', '2026-01-06 05:01:01.159943+00', '2026-01-06 05:01:01.2258+00', false);
INSERT INTO public.message VALUES (15, 'p_fbb20a87e70cd405', 'out', 'assistant', 'poll', 'Did you do it?', '{"options": ["Done", "Not this time"], "purpose": "done"}', 'dry-b4d36480c504099d', 'sent', '2026-01-06 05:01:01.159943+00', '2026-01-06 05:01:01.238444+00', false);
INSERT INTO public.message VALUES (16, 'p_fbb20a87e70cd405', 'out', 'assistant', 'poll', 'How do these daily steps feel to you?', '{"options": ["A bit lighter, please", "Just right", "A bit more, please"], "purpose": "intensity"}', 'dry-9eaa4f822c1e9336', 'sent', '2026-01-06 05:01:01.159943+00', '2026-01-06 05:01:01.254313+00', false);


--
-- Data for Name: outbox; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.outbox VALUES (1, 'reply:1', 'p_fbb20a87e70cd405', 1, 'sent', 1, '2026-01-06 04:57:34.862386+00', '2026-01-06 04:57:34.9643+00', '2026-01-06 04:57:34.975612+00', 'dry-7ed5c282139cac39', NULL, '2026-01-06 04:57:34.862386+00');
INSERT INTO public.outbox VALUES (2, 'reply:2', 'p_21dad5a666ebff68', 2, 'sent', 1, '2026-01-06 04:57:36.441851+00', '2026-01-06 04:57:36.472844+00', '2026-01-06 04:57:36.483731+00', 'dry-f5f7e2adac4da4dd', NULL, '2026-01-06 04:57:36.441851+00');
INSERT INTO public.outbox VALUES (3, 'reply:3', 'p_092ac36e1b3c9bb3', 3, 'sent', 1, '2026-01-06 04:57:37.476377+00', '2026-01-06 04:57:37.499857+00', '2026-01-06 04:57:37.507395+00', 'dry-95ed91798c2e4c72', NULL, '2026-01-06 04:57:37.476377+00');
INSERT INTO public.outbox VALUES (4, 'reply:4', 'p_616b1020f2d32a35', 4, 'sent', 1, '2026-01-06 04:57:39.023286+00', '2026-01-06 04:57:39.051533+00', '2026-01-06 04:57:39.059403+00', 'dry-fcc270c382bb2416', NULL, '2026-01-06 04:57:39.023286+00');
INSERT INTO public.outbox VALUES (5, 'reply:5', 'p_65a190e133a61ba7', 5, 'sent', 1, '2026-01-06 04:57:40.585443+00', '2026-01-06 04:57:40.590805+00', '2026-01-06 04:57:40.593268+00', 'dry-5c419a2163d58e29', NULL, '2026-01-06 04:57:40.585443+00');
INSERT INTO public.outbox VALUES (6, 'reply:6', 'p_fbb20a87e70cd405', 7, 'sent', 1, '2026-01-06 04:57:44.217378+00', '2026-01-06 04:57:44.248255+00', '2026-01-06 04:57:44.253662+00', 'dry-75604f7d044067e5', NULL, '2026-01-06 04:57:44.217378+00');
INSERT INTO public.outbox VALUES (7, 'reply:7', 'p_21dad5a666ebff68', 9, 'sent', 1, '2026-01-06 04:57:47.679667+00', '2026-01-06 04:57:47.709248+00', '2026-01-06 04:57:47.747373+00', 'dry-a339250ef59af745', NULL, '2026-01-06 04:57:47.679667+00');
INSERT INTO public.outbox VALUES (8, 'reply:10', 'p_65a190e133a61ba7', 11, 'sent', 1, '2026-01-06 04:57:57.380646+00', '2026-01-06 04:57:57.416904+00', '2026-01-06 04:57:57.806723+00', 'dry-6ef7e372c109ddbe', NULL, '2026-01-06 04:57:57.380646+00');
INSERT INTO public.outbox VALUES (9, 'reply:11', 'p_65a190e133a61ba7', 13, 'sent', 1, '2026-01-06 04:58:00.423204+00', '2026-01-06 04:58:00.435414+00', '2026-01-06 04:58:00.438854+00', 'dry-189991b961e873a0', NULL, '2026-01-06 04:58:00.423204+00');
INSERT INTO public.outbox VALUES (10, 'prompt-text:12', 'p_fbb20a87e70cd405', 14, 'sent', 1, '2026-01-06 05:01:01.159943+00', '2026-01-06 05:01:01.194586+00', '2026-01-06 05:01:01.2258+00', 'dry-fbb13d2f77dc13f3', NULL, '2026-01-06 05:01:01.159943+00');
INSERT INTO public.outbox VALUES (11, 'prompt-poll:12', 'p_fbb20a87e70cd405', 15, 'sent', 1, '2026-01-06 05:01:01.159943+00', '2026-01-06 05:01:01.233466+00', '2026-01-06 05:01:01.238444+00', 'dry-b4d36480c504099d', NULL, '2026-01-06 05:01:01.159943+00');
INSERT INTO public.outbox VALUES (12, 'intensity-poll:12', 'p_fbb20a87e70cd405', 16, 'sent', 1, '2026-01-06 05:01:01.159943+00', '2026-01-06 05:01:01.247383+00', '2026-01-06 05:01:01.254313+00', 'dry-9eaa4f822c1e9336', NULL, '2026-01-06 05:01:01.159943+00');


--
-- Data for Name: participant; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.participant VALUES ('p_fbb20a87e70cd405', '+14165550140', NULL, 'Ana', 'America/Toronto', 'active', false, false, NULL, '', '2026-01-06 04:57:32.323389+00', '2026-01-06 04:57:32.323389+00', NULL, NULL);
INSERT INTO public.participant VALUES ('p_21dad5a666ebff68', '+14165550141', NULL, 'Ben', 'America/Toronto', 'paused', true, false, 'participant', '', '2026-01-06 04:57:35.261867+00', '2026-01-06 04:57:47.679667+00', NULL, NULL);
INSERT INTO public.participant VALUES ('p_092ac36e1b3c9bb3', '+14165550142', NULL, 'Cleo', 'America/Toronto', 'paused', false, true, 'researcher', '', '2026-01-06 04:57:36.9467+00', '2026-01-06 04:57:49.920583+00', NULL, NULL);
INSERT INTO public.participant VALUES ('p_616b1020f2d32a35', '+14165550143', NULL, 'Dev', 'America/Toronto', 'withdrawn', false, false, NULL, '', '2026-01-06 04:57:38.371015+00', '2026-01-06 04:57:52.90188+00', NULL, NULL);
INSERT INTO public.participant VALUES ('p_65a190e133a61ba7', '+14165550144', NULL, 'Eli', 'America/Toronto', 'active', false, false, NULL, '', '2026-01-06 04:57:39.830726+00', '2026-01-06 04:58:00.423204+00', NULL, NULL);


--
-- Data for Name: prompt_delivery; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.prompt_delivery VALUES (1, 'p_fbb20a87e70cd405', 12, 's_ffe85ac1', '2026-01-06', 'Walk around the block right after dinner tonight: ten minutes is plenty.', 14, 15, '2026-01-06 05:01:01.147816+00', NULL, NULL, 0, NULL, NULL);


--
-- Data for Name: receipt; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: schedule; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.schedule VALUES ('s_ffe85ac1', 'p_fbb20a87e70cd405', 'fixed', '00:01', NULL, NULL, 0, true, '2026-01-06 04:57:44.217378+00', '2026-01-06 04:57:44.217378+00');


--
-- Data for Name: service_status; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: timer; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.timer VALUES (2, 'p_fbb20a87e70cd405', 'reminder', '2026-01-06 10:01:01.147816+00', '{"prompt_inbox_id": 12}', 'pending', 'daily prompt sent', '2026-01-06 05:01:01.159943+00', NULL);
INSERT INTO public.timer VALUES (1, 'p_fbb20a87e70cd405', 'feedback_check_in', '2026-01-06 05:12:44.202989+00', '{}', 'cancelled', 'daily prompt sent', '2026-01-06 04:57:44.217378+00', '2026-01-06 05:01:01.159943+00');
INSERT INTO public.timer VALUES (3, 'p_fbb20a87e70cd405', 'feedback_check_in', '2026-01-06 05:16:01.147816+00', '{}', 'pending', 'daily prompt sent', '2026-01-06 05:01:01.159943+00', NULL);


--
-- Data for Name: tone_event; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: transition; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.transition VALUES (1, 'p_fbb20a87e70cd405', 'status', 'enrolled', NULL, 'active', 'enrolled by a researcher', '2026-01-06 04:57:32.323389+00');
INSERT INTO public.transition VALUES (2, 'p_21dad5a666ebff68', 'status', 'enrolled', NULL, 'active', 'enrolled by a researcher', '2026-01-06 04:57:35.261867+00');
INSERT INTO public.transition VALUES (3, 'p_092ac36e1b3c9bb3', 'status', 'enrolled', NULL, 'active', 'enrolled by a researcher', '2026-01-06 04:57:36.9467+00');
INSERT INTO public.transition VALUES (4, 'p_616b1020f2d32a35', 'status', 'enrolled', NULL, 'active', 'enrolled by a researcher', '2026-01-06 04:57:38.371015+00');
INSERT INTO public.transition VALUES (5, 'p_65a190e133a61ba7', 'status', 'enrolled', NULL, 'active', 'enrolled by a researcher', '2026-01-06 04:57:39.830726+00');
INSERT INTO public.transition VALUES (6, 'p_fbb20a87e70cd405', 'sub_state', 'intake_to_feedback', 'INTAKE', 'FEEDBACK', 'the plan is set', '2026-01-06 04:57:44.217378+00');
INSERT INTO public.transition VALUES (7, 'p_21dad5a666ebff68', 'status', 'opted_out', 'active', 'paused', 'participant asked to stop: consent to messages withdrawn', '2026-01-06 04:57:47.679667+00');
INSERT INTO public.transition VALUES (8, 'p_092ac36e1b3c9bb3', 'status', 'paused_by_researcher', 'active', 'paused', 'on holiday', '2026-01-06 04:57:49.920583+00');
INSERT INTO public.transition VALUES (9, 'p_616b1020f2d32a35', 'status', 'withdrawn_by_researcher', 'active', 'withdrawn', 'moved away', '2026-01-06 04:57:52.90188+00');
INSERT INTO public.transition VALUES (10, 'p_65a190e133a61ba7', 'status', 'opted_out', 'active', 'paused', 'participant asked to stop: consent to messages withdrawn', '2026-01-06 04:57:57.380646+00');
INSERT INTO public.transition VALUES (11, 'p_65a190e133a61ba7', 'status', 'opted_in', 'paused', 'active', 'participant sent START', '2026-01-06 04:58:00.423204+00');


--
-- Name: consent_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.consent_id_seq', 10, true);


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

SELECT pg_catalog.setval('public.message_id_seq', 16, true);


--
-- Name: outbox_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.outbox_id_seq', 12, true);


--
-- Name: prompt_delivery_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.prompt_delivery_id_seq', 1, true);


--
-- Name: receipt_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.receipt_id_seq', 1, false);


--
-- Name: timer_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.timer_id_seq', 3, true);


--
-- Name: tone_event_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.tone_event_id_seq', 1, false);


--
-- Name: transition_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.transition_id_seq', 11, true);


--
-- Name: apscheduler_jobs apscheduler_jobs_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.apscheduler_jobs
    ADD CONSTRAINT apscheduler_jobs_pkey PRIMARY KEY (id);


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
-- Name: service_status service_status_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.service_status
    ADD CONSTRAINT service_status_pkey PRIMARY KEY (name);


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
-- Name: receipt uq_receipt_message_kind; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.receipt
    ADD CONSTRAINT uq_receipt_message_kind UNIQUE (wa_message_id, kind);


--
-- Name: ix_apscheduler_jobs_next_run_time; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_apscheduler_jobs_next_run_time ON public.apscheduler_jobs USING btree (next_run_time);


--
-- Name: ix_consent_participant_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_consent_participant_id ON public.consent USING btree (participant_id);


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
-- Name: ix_prompt_delivery_participant_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_prompt_delivery_participant_id ON public.prompt_delivery USING btree (participant_id, id);


--
-- Name: ix_prompt_delivery_poll_message_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_prompt_delivery_poll_message_id ON public.prompt_delivery USING btree (poll_message_id);


--
-- Name: ix_receipt_wa_message_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_receipt_wa_message_id ON public.receipt USING btree (wa_message_id);


--
-- Name: ix_schedule_participant_active; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_schedule_participant_active ON public.schedule USING btree (participant_id, active);


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

\unrestrict L0tkX87sxqYV9hDRnJeb3ANelKCzVEVoyzXbUP4qlOOGYczBrKkdwEXL8a5dUNY

