--
-- PostgreSQL database dump
--

\restrict im243acBl7ZfZVyS73pQpx3ydBsgFgRI4twyFp0rdBrIvfMwfWhf4LqK1O4uyCy

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
    sent_at timestamp with time zone
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
    paused_by character varying,
    background text NOT NULL,
    enrolled_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL
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



--
-- Data for Name: conversation; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.conversation VALUES ('p_111cdc5179ca0197', 'INTAKE', '{}', '{}', '', 0, 2, 3, '2026-11-25 06:33:03.753461+00');
INSERT INTO public.conversation VALUES ('p_775f16f17f072914', 'INTAKE', '{}', '{}', '', 0, 1, 3, '2026-11-25 06:33:07.896064+00');
INSERT INTO public.conversation VALUES ('p_7041281f1648b206', 'INTAKE', '{}', '{}', '', 0, 1, 3, '2026-11-25 06:33:11.769668+00');
INSERT INTO public.conversation VALUES ('p_bde808bc559f8eab', 'INTAKE', '{}', '{}', '', 0, 1, 3, '2026-11-25 06:33:16.080131+00');
INSERT INTO public.conversation VALUES ('p_af59ba229e2625d3', 'INTAKE', '{}', '{}', '', 0, 1, 4, '2026-11-25 06:33:24.777294+00');


--
-- Data for Name: inbox; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.inbox VALUES (4, 'enroll:p_bde808bc559f8eab', 'p_bde808bc559f8eab', 'enroll', '{}', NULL, 'done', 0, '2026-11-25 06:32:54.203942+00', '2026-11-25 06:32:54.203942+00', '2026-11-25 06:32:59.827213+00', NULL);
INSERT INTO public.inbox VALUES (3, 'enroll:p_7041281f1648b206', 'p_7041281f1648b206', 'enroll', '{}', NULL, 'done', 0, '2026-11-25 06:32:52.105483+00', '2026-11-25 06:32:52.105483+00', '2026-11-25 06:32:59.827142+00', NULL);
INSERT INTO public.inbox VALUES (1, 'enroll:p_111cdc5179ca0197', 'p_111cdc5179ca0197', 'enroll', '{}', NULL, 'done', 0, '2026-11-25 06:32:48.64985+00', '2026-11-25 06:32:48.64985+00', '2026-11-25 06:32:59.820927+00', NULL);
INSERT INTO public.inbox VALUES (2, 'enroll:p_775f16f17f072914', 'p_775f16f17f072914', 'enroll', '{}', NULL, 'done', 0, '2026-11-25 06:32:50.650026+00', '2026-11-25 06:32:50.650026+00', '2026-11-25 06:32:59.827185+00', NULL);
INSERT INTO public.inbox VALUES (5, 'enroll:p_af59ba229e2625d3', 'p_af59ba229e2625d3', 'enroll', '{}', NULL, 'done', 0, '2026-11-25 06:32:56.074334+00', '2026-11-25 06:32:56.074334+00', '2026-11-25 06:32:59.8272+00', NULL);
INSERT INTO public.inbox VALUES (6, 'wa:sim-0bd7f48fab06a32d', 'p_111cdc5179ca0197', 'message', '{}', 6, 'done', 0, '2026-11-25 06:33:03.241216+00', '2026-11-25 06:33:03.241216+00', '2026-11-25 06:33:03.753461+00', NULL);
INSERT INTO public.inbox VALUES (7, 'wa:sim-376598c33248eab4', 'p_775f16f17f072914', 'message', '{}', 8, 'done', 0, '2026-11-25 06:33:07.536733+00', '2026-11-25 06:33:07.536733+00', '2026-11-25 06:33:07.896064+00', NULL);
INSERT INTO public.inbox VALUES (8, 'sync:p_7041281f1648b206:f526ac49', 'p_7041281f1648b206', 'sync', '{}', NULL, 'done', 0, '2026-11-25 06:33:11.769668+00', '2026-11-25 06:33:11.769668+00', '2026-11-25 06:33:11.958865+00', NULL);
INSERT INTO public.inbox VALUES (9, 'sync:p_bde808bc559f8eab:d552d24a', 'p_bde808bc559f8eab', 'sync', '{}', NULL, 'done', 0, '2026-11-25 06:33:16.080131+00', '2026-11-25 06:33:16.080131+00', '2026-11-25 06:33:16.540799+00', NULL);
INSERT INTO public.inbox VALUES (10, 'wa:sim-69f7b1713285bb05', 'p_af59ba229e2625d3', 'message', '{}', 10, 'done', 0, '2026-11-25 06:33:19.830583+00', '2026-11-25 06:33:19.830583+00', '2026-11-25 06:33:20.161926+00', NULL);
INSERT INTO public.inbox VALUES (11, 'wa:sim-741722c18a3cf430', 'p_af59ba229e2625d3', 'message', '{}', 12, 'done', 0, '2026-11-25 06:33:24.482892+00', '2026-11-25 06:33:24.482892+00', '2026-11-25 06:33:24.777294+00', NULL);


--
-- Data for Name: lid_mapping; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: message; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.message VALUES (2, 'p_7041281f1648b206', 'out', 'assistant', 'greeting', 'Hello! Glad you''re here. What small habit would you like to build?', '{}', 'dry-7e4f6ee9c327e2c5', 'sent', '2026-11-25 06:32:59.827142+00', '2026-11-25 06:32:59.873146+00');
INSERT INTO public.message VALUES (3, 'p_bde808bc559f8eab', 'out', 'assistant', 'greeting', 'Hello! Glad you''re here. What small habit would you like to build?', '{}', 'dry-ab8a3e614932b30a', 'sent', '2026-11-25 06:32:59.827213+00', '2026-11-25 06:32:59.873192+00');
INSERT INTO public.message VALUES (1, 'p_111cdc5179ca0197', 'out', 'assistant', 'greeting', 'Hello! Glad you''re here. What small habit would you like to build?', '{}', 'dry-5ad591e6226c9020', 'sent', '2026-11-25 06:32:59.820927+00', '2026-11-25 06:32:59.873215+00');
INSERT INTO public.message VALUES (4, 'p_af59ba229e2625d3', 'out', 'assistant', 'greeting', 'Hello! Glad you''re here. What small habit would you like to build?', '{}', 'dry-a84ddd844162070d', 'sent', '2026-11-25 06:32:59.8272+00', '2026-11-25 06:32:59.873235+00');
INSERT INTO public.message VALUES (5, 'p_775f16f17f072914', 'out', 'assistant', 'greeting', 'Hello! Glad you''re here. What small habit would you like to build?', '{}', 'dry-24a44a06e105ac8b', 'sent', '2026-11-25 06:32:59.827185+00', '2026-11-25 06:32:59.873252+00');
INSERT INTO public.message VALUES (6, 'p_111cdc5179ca0197', 'in', 'user', 'text', 'I''d like to walk after lunch', '{}', 'sim-0bd7f48fab06a32d', 'answered', '2026-11-25 06:33:03.241216+00', NULL);
INSERT INTO public.message VALUES (7, 'p_111cdc5179ca0197', 'out', 'assistant', 'text', 'Hello! Glad you''re here. What small habit would you like to build?', '{}', 'dry-ebeb1475fa391c85', 'sent', '2026-11-25 06:33:03.753461+00', '2026-11-25 06:33:03.793824+00');
INSERT INTO public.message VALUES (8, 'p_775f16f17f072914', 'in', 'user', 'text', 'STOP', '{}', 'sim-376598c33248eab4', 'answered', '2026-11-25 06:33:07.536733+00', NULL);
INSERT INTO public.message VALUES (9, 'p_775f16f17f072914', 'out', 'assistant', 'command', 'Okay, you''re unsubscribed: you won''t get any more daily nudges, reminders or check-ins from this study. If you change your mind, send START. Send HELP for information.', '{}', 'dry-cb1102356d019e1c', 'sent', '2026-11-25 06:33:07.896064+00', '2026-11-25 06:33:07.926974+00');
INSERT INTO public.message VALUES (10, 'p_af59ba229e2625d3', 'in', 'user', 'text', 'STOP', '{}', 'sim-69f7b1713285bb05', 'answered', '2026-11-25 06:33:19.830583+00', NULL);
INSERT INTO public.message VALUES (11, 'p_af59ba229e2625d3', 'out', 'assistant', 'command', 'Okay, you''re unsubscribed: you won''t get any more daily nudges, reminders or check-ins from this study. If you change your mind, send START. Send HELP for information.', '{}', 'dry-98105a125e995d36', 'sent', '2026-11-25 06:33:20.161926+00', '2026-11-25 06:33:20.23065+00');
INSERT INTO public.message VALUES (12, 'p_af59ba229e2625d3', 'in', 'user', 'text', 'START', '{}', 'sim-741722c18a3cf430', 'answered', '2026-11-25 06:33:24.482892+00', NULL);
INSERT INTO public.message VALUES (13, 'p_af59ba229e2625d3', 'out', 'assistant', 'command', 'Welcome back! Your daily nudges are switched on again.', '{}', 'dry-7a562aaf67b9002f', 'sent', '2026-11-25 06:33:24.777294+00', '2026-11-25 06:33:24.813732+00');


--
-- Data for Name: outbox; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.outbox VALUES (1, 'reply:3', 'p_7041281f1648b206', 2, 'sent', 1, '2026-11-25 06:32:59.827142+00', '2026-11-25 06:32:59.861802+00', '2026-11-25 06:32:59.873146+00', 'dry-7e4f6ee9c327e2c5', NULL, '2026-11-25 06:32:59.827142+00');
INSERT INTO public.outbox VALUES (2, 'reply:4', 'p_bde808bc559f8eab', 3, 'sent', 1, '2026-11-25 06:32:59.827213+00', '2026-11-25 06:32:59.861802+00', '2026-11-25 06:32:59.873192+00', 'dry-ab8a3e614932b30a', NULL, '2026-11-25 06:32:59.827213+00');
INSERT INTO public.outbox VALUES (3, 'reply:1', 'p_111cdc5179ca0197', 1, 'sent', 1, '2026-11-25 06:32:59.820927+00', '2026-11-25 06:32:59.861802+00', '2026-11-25 06:32:59.873215+00', 'dry-5ad591e6226c9020', NULL, '2026-11-25 06:32:59.820927+00');
INSERT INTO public.outbox VALUES (4, 'reply:5', 'p_af59ba229e2625d3', 4, 'sent', 1, '2026-11-25 06:32:59.8272+00', '2026-11-25 06:32:59.861802+00', '2026-11-25 06:32:59.873235+00', 'dry-a84ddd844162070d', NULL, '2026-11-25 06:32:59.8272+00');
INSERT INTO public.outbox VALUES (5, 'reply:2', 'p_775f16f17f072914', 5, 'sent', 1, '2026-11-25 06:32:59.827185+00', '2026-11-25 06:32:59.861802+00', '2026-11-25 06:32:59.873252+00', 'dry-24a44a06e105ac8b', NULL, '2026-11-25 06:32:59.827185+00');
INSERT INTO public.outbox VALUES (6, 'reply:6', 'p_111cdc5179ca0197', 7, 'sent', 1, '2026-11-25 06:33:03.753461+00', '2026-11-25 06:33:03.777618+00', '2026-11-25 06:33:03.793824+00', 'dry-ebeb1475fa391c85', NULL, '2026-11-25 06:33:03.753461+00');
INSERT INTO public.outbox VALUES (7, 'reply:7', 'p_775f16f17f072914', 9, 'sent', 1, '2026-11-25 06:33:07.896064+00', '2026-11-25 06:33:07.919949+00', '2026-11-25 06:33:07.926974+00', 'dry-cb1102356d019e1c', NULL, '2026-11-25 06:33:07.896064+00');
INSERT INTO public.outbox VALUES (8, 'reply:10', 'p_af59ba229e2625d3', 11, 'sent', 1, '2026-11-25 06:33:20.161926+00', '2026-11-25 06:33:20.219272+00', '2026-11-25 06:33:20.23065+00', 'dry-98105a125e995d36', NULL, '2026-11-25 06:33:20.161926+00');
INSERT INTO public.outbox VALUES (9, 'reply:11', 'p_af59ba229e2625d3', 13, 'sent', 1, '2026-11-25 06:33:24.777294+00', '2026-11-25 06:33:24.808932+00', '2026-11-25 06:33:24.813732+00', 'dry-7a562aaf67b9002f', NULL, '2026-11-25 06:33:24.777294+00');


--
-- Data for Name: participant; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.participant VALUES ('p_111cdc5179ca0197', '+14165550140', NULL, 'Ana', 'America/Toronto', 'active', NULL, '', '2026-11-25 06:32:48.64985+00', '2026-11-25 06:32:48.64985+00');
INSERT INTO public.participant VALUES ('p_775f16f17f072914', '+14165550141', NULL, 'Ben', 'America/Toronto', 'paused', 'participant', '', '2026-11-25 06:32:50.650026+00', '2026-11-25 06:33:07.896064+00');
INSERT INTO public.participant VALUES ('p_7041281f1648b206', '+14165550142', NULL, 'Cleo', 'America/Toronto', 'paused', 'researcher', '', '2026-11-25 06:32:52.105483+00', '2026-11-25 06:33:11.769668+00');
INSERT INTO public.participant VALUES ('p_bde808bc559f8eab', '+14165550143', NULL, 'Dev', 'America/Toronto', 'withdrawn', NULL, '', '2026-11-25 06:32:54.203942+00', '2026-11-25 06:33:16.080131+00');
INSERT INTO public.participant VALUES ('p_af59ba229e2625d3', '+14165550144', NULL, 'Eli', 'America/Toronto', 'active', NULL, '', '2026-11-25 06:32:56.074334+00', '2026-11-25 06:33:24.777294+00');


--
-- Data for Name: prompt_delivery; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: schedule; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: timer; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: tone_event; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: transition; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.transition VALUES (1, 'p_111cdc5179ca0197', 'status', 'enrolled', NULL, 'active', 'enrolled by a researcher', '2026-11-25 06:32:48.64985+00');
INSERT INTO public.transition VALUES (2, 'p_775f16f17f072914', 'status', 'enrolled', NULL, 'active', 'enrolled by a researcher', '2026-11-25 06:32:50.650026+00');
INSERT INTO public.transition VALUES (3, 'p_7041281f1648b206', 'status', 'enrolled', NULL, 'active', 'enrolled by a researcher', '2026-11-25 06:32:52.105483+00');
INSERT INTO public.transition VALUES (4, 'p_bde808bc559f8eab', 'status', 'enrolled', NULL, 'active', 'enrolled by a researcher', '2026-11-25 06:32:54.203942+00');
INSERT INTO public.transition VALUES (5, 'p_af59ba229e2625d3', 'status', 'enrolled', NULL, 'active', 'enrolled by a researcher', '2026-11-25 06:32:56.074334+00');
INSERT INTO public.transition VALUES (6, 'p_775f16f17f072914', 'status', 'opted_out', 'active', 'paused', 'participant sent STOP: consent to messages withdrawn', '2026-11-25 06:33:07.896064+00');
INSERT INTO public.transition VALUES (7, 'p_7041281f1648b206', 'status', 'paused_by_researcher', 'active', 'paused', 'on holiday', '2026-11-25 06:33:11.769668+00');
INSERT INTO public.transition VALUES (8, 'p_bde808bc559f8eab', 'status', 'withdrawn_by_researcher', 'active', 'withdrawn', 'moved away', '2026-11-25 06:33:16.080131+00');
INSERT INTO public.transition VALUES (9, 'p_af59ba229e2625d3', 'status', 'opted_out', 'active', 'paused', 'participant sent STOP: consent to messages withdrawn', '2026-11-25 06:33:20.161926+00');
INSERT INTO public.transition VALUES (10, 'p_af59ba229e2625d3', 'status', 'opted_in', 'paused', 'active', 'participant sent START', '2026-11-25 06:33:24.777294+00');


--
-- Name: inbox_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.inbox_id_seq', 11, true);


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
-- Name: timer_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.timer_id_seq', 1, false);


--
-- Name: tone_event_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.tone_event_id_seq', 1, false);


--
-- Name: transition_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.transition_id_seq', 10, true);


--
-- Name: apscheduler_jobs apscheduler_jobs_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.apscheduler_jobs
    ADD CONSTRAINT apscheduler_jobs_pkey PRIMARY KEY (id);


--
-- Name: conversation conversation_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.conversation
    ADD CONSTRAINT conversation_pkey PRIMARY KEY (participant_id);


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
-- Name: schedule schedule_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.schedule
    ADD CONSTRAINT schedule_pkey PRIMARY KEY (id);


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
-- Name: ix_apscheduler_jobs_next_run_time; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_apscheduler_jobs_next_run_time ON public.apscheduler_jobs USING btree (next_run_time);


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
-- Name: conversation conversation_participant_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.conversation
    ADD CONSTRAINT conversation_participant_id_fkey FOREIGN KEY (participant_id) REFERENCES public.participant(id);


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

\unrestrict im243acBl7ZfZVyS73pQpx3ydBsgFgRI4twyFp0rdBrIvfMwfWhf4LqK1O4uyCy

