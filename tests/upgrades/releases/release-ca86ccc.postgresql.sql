--
-- PostgreSQL database dump
--

\restrict ZCcX7lkVeb4bSM29rgfZ5lzNSUzr7mUxUk81aPON4h4IDzQ3OxplKvgiViDjbW8

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

INSERT INTO public.apscheduler_jobs VALUES ('daily:p_04ac75b5d73b2234:s_349205d6', 1767762060, '\x80059554020000000000007d94288c0776657273696f6e944b018c026964948c236461696c793a705f303461633735623564373362323233343a735f3334393230356436948c0466756e63948c2b70726f6d7074706970652e7363686564756c696e672e6a6f62733a6461696c795f70726f6d70745f647565948c0774726967676572948c1d70726f6d7074706970652e7363686564756c696e672e74726967676572948c124461696c7950726f6d7074547269676765729493942981947d942868014b018c046b696e64948c056669786564948c0a68616269745f74696d65948c0530303a3031948c0c77696e646f775f7374617274944e8c0a77696e646f775f656e64944e8c0c707265705f6d696e75746573944b008c0473656564948c0a735f3334393230356436948c047a6f6e65948c0f416d65726963612f546f726f6e746f9475628c086578656375746f72948c0764656661756c74948c046172677394298c066b7761726773947d94288c0e7061727469636970616e745f6964948c12705f30346163373562356437336232323334948c0b7363686564756c655f6964946814758c046e616d65948c106461696c795f70726f6d70745f647565948c126d6973666972655f67726163655f74696d65944d100e8c08636f616c6573636594888c0d6d61785f696e7374616e636573944b018c0d6e6578745f72756e5f74696d65948c086461746574696d65948c086461746574696d65949394430a07ea01070501000000009468258c0874696d657a6f6e6594939468258c0974696d6564656c74619493944b004b004b00879452948594529486945294752e');
INSERT INTO public.apscheduler_jobs VALUES ('reminder:p_04ac75b5d73b2234', 1767693660.12761, '\x800595bd010000000000007d94288c0776657273696f6e944b018c026964948c1b72656d696e6465723a705f30346163373562356437336232323334948c0466756e63948c2470726f6d7074706970652e7363686564756c696e672e6a6f62733a74696d65725f647565948c0774726967676572948c1961707363686564756c65722e74726967676572732e64617465948c0b44617465547269676765729493942981947d942868014b018c0872756e5f64617465948c086461746574696d65948c086461746574696d65949394430a07ea01060a010001f27a94680d8c0874696d657a6f6e65949394680d8c0974696d6564656c74619493944b004b004b0087945294859452948694529475628c086578656375746f72948c0764656661756c74948c046172677394298c066b7761726773947d94288c0e7061727469636970616e745f6964948c12705f30346163373562356437336232323334948c0874696d65725f6964944b02758c046e616d65948c0974696d65725f647565948c126d6973666972655f67726163655f74696d65944d100e8c08636f616c6573636594888c0d6d61785f696e7374616e636573944b018c0d6e6578745f72756e5f74696d6594681a752e');
INSERT INTO public.apscheduler_jobs VALUES ('feedback_check_in:p_04ac75b5d73b2234', 1767676560.12761, '\x800595c6010000000000007d94288c0776657273696f6e944b018c026964948c24666565646261636b5f636865636b5f696e3a705f30346163373562356437336232323334948c0466756e63948c2470726f6d7074706970652e7363686564756c696e672e6a6f62733a74696d65725f647565948c0774726967676572948c1961707363686564756c65722e74726967676572732e64617465948c0b44617465547269676765729493942981947d942868014b018c0872756e5f64617465948c086461746574696d65948c086461746574696d65949394430a07ea010605100001f27a94680d8c0874696d657a6f6e65949394680d8c0974696d6564656c74619493944b004b004b0087945294859452948694529475628c086578656375746f72948c0764656661756c74948c046172677394298c066b7761726773947d94288c0e7061727469636970616e745f6964948c12705f30346163373562356437336232323334948c0874696d65725f6964944b03758c046e616d65948c0974696d65725f647565948c126d6973666972655f67726163655f74696d65944d100e8c08636f616c6573636594888c0d6d61785f696e7374616e636573944b018c0d6e6578745f72756e5f74696d6594681a752e');


--
-- Data for Name: conversation; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.conversation VALUES ('p_93533f89fb109a16', 'INTAKE', '{}', '{}', '', 0, 1, 3, '2026-01-06 04:58:02.26069+00');
INSERT INTO public.conversation VALUES ('p_e0dc067f74df2408', 'INTAKE', '{}', '{}', '', 0, 1, 3, '2026-01-06 04:58:06.705891+00');
INSERT INTO public.conversation VALUES ('p_8e374fe5eb3aee67', 'INTAKE', '{}', '{}', '', 0, 1, 3, '2026-01-06 04:58:11.02824+00');
INSERT INTO public.conversation VALUES ('p_28f5ffc19440ec67', 'INTAKE', '{}', '{}', '', 0, 1, 4, '2026-01-06 04:58:21.008564+00');
INSERT INTO public.conversation VALUES ('p_04ac75b5d73b2234', 'FEEDBACK', '{"counters": {"misses": 0, "successes": 0, "best_streak": 0, "prompts_sent": 1, "current_streak": 0, "last_miss_date": null, "last_success_date": null}, "updated_at": "2026-01-06T04:57:57.642883+00:00", "habit_domain": "walking", "prompt_anchor": "after dinner", "preferred_time": "00:01", "last_prompt_vote": null, "last_habit_prompt": "Walk around the block right after dinner tonight: ten minutes is plenty.", "motivational_frame": "to sleep better", "intensity_poll_date": "2026-01-06", "last_prompt_sent_at": "2026-01-06T05:01:00.127610+00:00", "intensity_poll_message": 16}', '{}', '', 0, 2, 4, '2026-01-06 05:01:00.166183+00');


--
-- Data for Name: inbox; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.inbox VALUES (1, 'enroll:p_04ac75b5d73b2234', 'p_04ac75b5d73b2234', 'enroll', '{}', NULL, 'done', 0, '2026-01-06 04:57:33.720744+00', '2026-01-06 04:57:33.720744+00', '2026-01-06 04:57:37.732818+00', NULL);
INSERT INTO public.inbox VALUES (2, 'enroll:p_93533f89fb109a16', 'p_93533f89fb109a16', 'enroll', '{}', NULL, 'done', 0, '2026-01-06 04:57:38.724831+00', '2026-01-06 04:57:38.724831+00', '2026-01-06 04:57:39.862895+00', NULL);
INSERT INTO public.inbox VALUES (3, 'enroll:p_e0dc067f74df2408', 'p_e0dc067f74df2408', 'enroll', '{}', NULL, 'done', 0, '2026-01-06 04:57:43.120229+00', '2026-01-06 04:57:43.120229+00', '2026-01-06 04:57:43.574878+00', NULL);
INSERT INTO public.inbox VALUES (4, 'enroll:p_8e374fe5eb3aee67', 'p_8e374fe5eb3aee67', 'enroll', '{}', NULL, 'done', 0, '2026-01-06 04:57:47.546944+00', '2026-01-06 04:57:47.546944+00', '2026-01-06 04:57:48.289268+00', NULL);
INSERT INTO public.inbox VALUES (5, 'enroll:p_28f5ffc19440ec67', 'p_28f5ffc19440ec67', 'enroll', '{}', NULL, 'done', 0, '2026-01-06 04:57:51.973413+00', '2026-01-06 04:57:51.973413+00', '2026-01-06 04:57:52.470814+00', NULL);
INSERT INTO public.inbox VALUES (6, 'wa:sim-341b68c735fadb47', 'p_04ac75b5d73b2234', 'message', '{}', 6, 'done', 0, '2026-01-06 04:57:57.224857+00', '2026-01-06 04:57:57.224857+00', '2026-01-06 04:57:57.722049+00', NULL);
INSERT INTO public.inbox VALUES (7, 'wa:sim-13a9aa9c9c470a0e', 'p_93533f89fb109a16', 'message', '{}', 8, 'done', 0, '2026-01-06 04:58:01.449586+00', '2026-01-06 04:58:01.449586+00', '2026-01-06 04:58:02.26069+00', NULL);
INSERT INTO public.inbox VALUES (8, 'sync:p_e0dc067f74df2408:911a5a10', 'p_e0dc067f74df2408', 'sync', '{}', NULL, 'done', 0, '2026-01-06 04:58:06.705891+00', '2026-01-06 04:58:06.705891+00', '2026-01-06 04:58:07.089505+00', NULL);
INSERT INTO public.inbox VALUES (9, 'sync:p_8e374fe5eb3aee67:ed952401', 'p_8e374fe5eb3aee67', 'sync', '{}', NULL, 'done', 0, '2026-01-06 04:58:11.02824+00', '2026-01-06 04:58:11.02824+00', '2026-01-06 04:58:12.328409+00', NULL);
INSERT INTO public.inbox VALUES (10, 'wa:sim-1185efa9665b830f', 'p_28f5ffc19440ec67', 'message', '{}', 10, 'done', 0, '2026-01-06 04:58:15.212116+00', '2026-01-06 04:58:15.212116+00', '2026-01-06 04:58:16.356673+00', NULL);
INSERT INTO public.inbox VALUES (11, 'wa:sim-59749cd867ea613a', 'p_28f5ffc19440ec67', 'message', '{}', 12, 'done', 0, '2026-01-06 04:58:19.786407+00', '2026-01-06 04:58:19.786407+00', '2026-01-06 04:58:21.008564+00', NULL);
INSERT INTO public.inbox VALUES (12, 'prompt:p_04ac75b5d73b2234:s_349205d6:2026-01-06', 'p_04ac75b5d73b2234', 'daily_prompt', '{"due_at": "2026-01-06T05:01:00+00:00", "local_date": "2026-01-06", "schedule_id": "s_349205d6"}', NULL, 'done', 0, '2026-01-06 05:01:00.012405+00', '2026-01-06 05:01:00.012405+00', '2026-01-06 05:01:00.166183+00', NULL);


--
-- Data for Name: lid_mapping; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: message; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.message VALUES (1, 'p_04ac75b5d73b2234', 'out', 'assistant', 'greeting', 'Walk around the block right after dinner tonight: ten minutes is plenty.', '{}', 'dry-e381dfb8f2f6d0dc', 'sent', '2026-01-06 04:57:37.732818+00', '2026-01-06 04:57:37.844476+00');
INSERT INTO public.message VALUES (2, 'p_93533f89fb109a16', 'out', 'assistant', 'greeting', 'Walk around the block right after dinner tonight: ten minutes is plenty.', '{}', 'dry-3e11bd228e0d5c15', 'sent', '2026-01-06 04:57:39.862895+00', '2026-01-06 04:57:39.913398+00');
INSERT INTO public.message VALUES (3, 'p_e0dc067f74df2408', 'out', 'assistant', 'greeting', 'Walk around the block right after dinner tonight: ten minutes is plenty.', '{}', 'dry-9ca4f60944134f73', 'sent', '2026-01-06 04:57:43.574878+00', '2026-01-06 04:57:43.736516+00');
INSERT INTO public.message VALUES (4, 'p_8e374fe5eb3aee67', 'out', 'assistant', 'greeting', 'Walk around the block right after dinner tonight: ten minutes is plenty.', '{}', 'dry-dd6bc02c9825a782', 'sent', '2026-01-06 04:57:48.289268+00', '2026-01-06 04:57:48.33709+00');
INSERT INTO public.message VALUES (5, 'p_28f5ffc19440ec67', 'out', 'assistant', 'greeting', 'Walk around the block right after dinner tonight: ten minutes is plenty.', '{}', 'dry-137a22967248ccd1', 'sent', '2026-01-06 04:57:52.470814+00', '2026-01-06 04:57:52.549063+00');
INSERT INTO public.message VALUES (6, 'p_04ac75b5d73b2234', 'in', 'user', 'text', 'I''d like to walk around the block after dinner, just after midnight works', '{}', 'sim-341b68c735fadb47', 'answered', '2026-01-06 04:57:57.224857+00', NULL);
INSERT INTO public.message VALUES (7, 'p_04ac75b5d73b2234', 'out', 'assistant', 'text', 'Lovely, your plan is set. I''ll nudge you each day.', '{}', 'dry-c8711e6f2060dce1', 'sent', '2026-01-06 04:57:57.722049+00', '2026-01-06 04:57:57.905001+00');
INSERT INTO public.message VALUES (8, 'p_93533f89fb109a16', 'in', 'user', 'text', 'STOP', '{}', 'sim-13a9aa9c9c470a0e', 'answered', '2026-01-06 04:58:01.449586+00', NULL);
INSERT INTO public.message VALUES (9, 'p_93533f89fb109a16', 'out', 'assistant', 'command', 'Okay, you''re unsubscribed: you won''t get any more daily nudges, reminders or check-ins from this study. If you change your mind, send START. Send HELP for information.', '{}', 'dry-0dc6a393c5f3d15c', 'sent', '2026-01-06 04:58:02.26069+00', '2026-01-06 04:58:02.317413+00');
INSERT INTO public.message VALUES (10, 'p_28f5ffc19440ec67', 'in', 'user', 'text', 'STOP', '{}', 'sim-1185efa9665b830f', 'answered', '2026-01-06 04:58:15.212116+00', NULL);
INSERT INTO public.message VALUES (11, 'p_28f5ffc19440ec67', 'out', 'assistant', 'command', 'Okay, you''re unsubscribed: you won''t get any more daily nudges, reminders or check-ins from this study. If you change your mind, send START. Send HELP for information.', '{}', 'dry-ea9a3dfa71da999d', 'sent', '2026-01-06 04:58:16.356673+00', '2026-01-06 04:58:16.389807+00');
INSERT INTO public.message VALUES (12, 'p_28f5ffc19440ec67', 'in', 'user', 'text', 'START', '{}', 'sim-59749cd867ea613a', 'answered', '2026-01-06 04:58:19.786407+00', NULL);
INSERT INTO public.message VALUES (13, 'p_28f5ffc19440ec67', 'out', 'assistant', 'command', 'Welcome back! Your daily nudges are switched on again.', '{}', 'dry-19ac04d90993aa89', 'sent', '2026-01-06 04:58:21.008564+00', '2026-01-06 04:58:21.035199+00');
INSERT INTO public.message VALUES (14, 'p_04ac75b5d73b2234', 'out', 'assistant', 'prompt', 'Walk around the block right after dinner tonight: ten minutes is plenty.', '{}', 'dry-f9aece2674bbdb8e', 'sent', '2026-01-06 05:01:00.166183+00', '2026-01-06 05:01:00.241667+00');
INSERT INTO public.message VALUES (15, 'p_04ac75b5d73b2234', 'out', 'assistant', 'poll', 'Did you do it?', '{"options": ["Done", "Not this time"], "purpose": "done"}', 'dry-cc069e0602917754', 'sent', '2026-01-06 05:01:00.166183+00', '2026-01-06 05:01:00.400535+00');
INSERT INTO public.message VALUES (16, 'p_04ac75b5d73b2234', 'out', 'assistant', 'poll', 'How do these daily steps feel to you?', '{"options": ["A bit lighter, please", "Just right", "A bit more, please"], "purpose": "intensity"}', 'dry-41099eb0dfb6e34d', 'sent', '2026-01-06 05:01:00.166183+00', '2026-01-06 05:01:00.428963+00');


--
-- Data for Name: outbox; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.outbox VALUES (1, 'reply:1', 'p_04ac75b5d73b2234', 1, 'sent', 1, '2026-01-06 04:57:37.732818+00', '2026-01-06 04:57:37.81901+00', '2026-01-06 04:57:37.844476+00', 'dry-e381dfb8f2f6d0dc', NULL, '2026-01-06 04:57:37.732818+00');
INSERT INTO public.outbox VALUES (2, 'reply:2', 'p_93533f89fb109a16', 2, 'sent', 1, '2026-01-06 04:57:39.862895+00', '2026-01-06 04:57:39.908374+00', '2026-01-06 04:57:39.913398+00', 'dry-3e11bd228e0d5c15', NULL, '2026-01-06 04:57:39.862895+00');
INSERT INTO public.outbox VALUES (3, 'reply:3', 'p_e0dc067f74df2408', 3, 'sent', 1, '2026-01-06 04:57:43.574878+00', '2026-01-06 04:57:43.725441+00', '2026-01-06 04:57:43.736516+00', 'dry-9ca4f60944134f73', NULL, '2026-01-06 04:57:43.574878+00');
INSERT INTO public.outbox VALUES (4, 'reply:4', 'p_8e374fe5eb3aee67', 4, 'sent', 1, '2026-01-06 04:57:48.289268+00', '2026-01-06 04:57:48.329166+00', '2026-01-06 04:57:48.33709+00', 'dry-dd6bc02c9825a782', NULL, '2026-01-06 04:57:48.289268+00');
INSERT INTO public.outbox VALUES (5, 'reply:5', 'p_28f5ffc19440ec67', 5, 'sent', 1, '2026-01-06 04:57:52.470814+00', '2026-01-06 04:57:52.536393+00', '2026-01-06 04:57:52.549063+00', 'dry-137a22967248ccd1', NULL, '2026-01-06 04:57:52.470814+00');
INSERT INTO public.outbox VALUES (6, 'reply:6', 'p_04ac75b5d73b2234', 7, 'sent', 1, '2026-01-06 04:57:57.722049+00', '2026-01-06 04:57:57.889269+00', '2026-01-06 04:57:57.905001+00', 'dry-c8711e6f2060dce1', NULL, '2026-01-06 04:57:57.722049+00');
INSERT INTO public.outbox VALUES (7, 'reply:7', 'p_93533f89fb109a16', 9, 'sent', 1, '2026-01-06 04:58:02.26069+00', '2026-01-06 04:58:02.314265+00', '2026-01-06 04:58:02.317413+00', 'dry-0dc6a393c5f3d15c', NULL, '2026-01-06 04:58:02.26069+00');
INSERT INTO public.outbox VALUES (8, 'reply:10', 'p_28f5ffc19440ec67', 11, 'sent', 1, '2026-01-06 04:58:16.356673+00', '2026-01-06 04:58:16.385654+00', '2026-01-06 04:58:16.389807+00', 'dry-ea9a3dfa71da999d', NULL, '2026-01-06 04:58:16.356673+00');
INSERT INTO public.outbox VALUES (9, 'reply:11', 'p_28f5ffc19440ec67', 13, 'sent', 1, '2026-01-06 04:58:21.008564+00', '2026-01-06 04:58:21.026932+00', '2026-01-06 04:58:21.035199+00', 'dry-19ac04d90993aa89', NULL, '2026-01-06 04:58:21.008564+00');
INSERT INTO public.outbox VALUES (10, 'prompt-text:12', 'p_04ac75b5d73b2234', 14, 'sent', 1, '2026-01-06 05:01:00.166183+00', '2026-01-06 05:01:00.211209+00', '2026-01-06 05:01:00.241667+00', 'dry-f9aece2674bbdb8e', NULL, '2026-01-06 05:01:00.166183+00');
INSERT INTO public.outbox VALUES (11, 'prompt-poll:12', 'p_04ac75b5d73b2234', 15, 'sent', 1, '2026-01-06 05:01:00.166183+00', '2026-01-06 05:01:00.392505+00', '2026-01-06 05:01:00.400535+00', 'dry-cc069e0602917754', NULL, '2026-01-06 05:01:00.166183+00');
INSERT INTO public.outbox VALUES (12, 'intensity-poll:12', 'p_04ac75b5d73b2234', 16, 'sent', 1, '2026-01-06 05:01:00.166183+00', '2026-01-06 05:01:00.417309+00', '2026-01-06 05:01:00.428963+00', 'dry-41099eb0dfb6e34d', NULL, '2026-01-06 05:01:00.166183+00');


--
-- Data for Name: participant; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.participant VALUES ('p_04ac75b5d73b2234', '+14165550140', NULL, 'Ana', 'America/Toronto', 'active', NULL, '', '2026-01-06 04:57:33.720744+00', '2026-01-06 04:57:33.720744+00');
INSERT INTO public.participant VALUES ('p_93533f89fb109a16', '+14165550141', NULL, 'Ben', 'America/Toronto', 'paused', 'participant', '', '2026-01-06 04:57:38.724831+00', '2026-01-06 04:58:02.26069+00');
INSERT INTO public.participant VALUES ('p_e0dc067f74df2408', '+14165550142', NULL, 'Cleo', 'America/Toronto', 'paused', 'researcher', '', '2026-01-06 04:57:43.120229+00', '2026-01-06 04:58:06.705891+00');
INSERT INTO public.participant VALUES ('p_8e374fe5eb3aee67', '+14165550143', NULL, 'Dev', 'America/Toronto', 'withdrawn', NULL, '', '2026-01-06 04:57:47.546944+00', '2026-01-06 04:58:11.02824+00');
INSERT INTO public.participant VALUES ('p_28f5ffc19440ec67', '+14165550144', NULL, 'Eli', 'America/Toronto', 'active', NULL, '', '2026-01-06 04:57:51.973413+00', '2026-01-06 04:58:21.008564+00');


--
-- Data for Name: prompt_delivery; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.prompt_delivery VALUES (1, 'p_04ac75b5d73b2234', 12, 's_349205d6', '2026-01-06', 'Walk around the block right after dinner tonight: ten minutes is plenty.', 14, 15, '2026-01-06 05:01:00.12761+00', NULL, NULL, 0, NULL, NULL);


--
-- Data for Name: schedule; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.schedule VALUES ('s_349205d6', 'p_04ac75b5d73b2234', 'fixed', '00:01', NULL, NULL, 0, true, '2026-01-06 04:57:57.722049+00', '2026-01-06 04:57:57.722049+00');


--
-- Data for Name: timer; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.timer VALUES (2, 'p_04ac75b5d73b2234', 'reminder', '2026-01-06 10:01:00.12761+00', '{"prompt_inbox_id": 12}', 'pending', 'daily prompt sent', '2026-01-06 05:01:00.166183+00', NULL);
INSERT INTO public.timer VALUES (1, 'p_04ac75b5d73b2234', 'feedback_check_in', '2026-01-06 05:12:57.721925+00', '{}', 'cancelled', 'daily prompt sent', '2026-01-06 04:57:57.722049+00', '2026-01-06 05:01:00.166183+00');
INSERT INTO public.timer VALUES (3, 'p_04ac75b5d73b2234', 'feedback_check_in', '2026-01-06 05:16:00.12761+00', '{}', 'pending', 'daily prompt sent', '2026-01-06 05:01:00.166183+00', NULL);


--
-- Data for Name: tone_event; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: transition; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.transition VALUES (1, 'p_04ac75b5d73b2234', 'status', 'enrolled', NULL, 'active', 'enrolled by a researcher', '2026-01-06 04:57:33.720744+00');
INSERT INTO public.transition VALUES (2, 'p_93533f89fb109a16', 'status', 'enrolled', NULL, 'active', 'enrolled by a researcher', '2026-01-06 04:57:38.724831+00');
INSERT INTO public.transition VALUES (3, 'p_e0dc067f74df2408', 'status', 'enrolled', NULL, 'active', 'enrolled by a researcher', '2026-01-06 04:57:43.120229+00');
INSERT INTO public.transition VALUES (4, 'p_8e374fe5eb3aee67', 'status', 'enrolled', NULL, 'active', 'enrolled by a researcher', '2026-01-06 04:57:47.546944+00');
INSERT INTO public.transition VALUES (5, 'p_28f5ffc19440ec67', 'status', 'enrolled', NULL, 'active', 'enrolled by a researcher', '2026-01-06 04:57:51.973413+00');
INSERT INTO public.transition VALUES (6, 'p_04ac75b5d73b2234', 'sub_state', 'intake_to_feedback', 'INTAKE', 'FEEDBACK', 'the plan is set', '2026-01-06 04:57:57.722049+00');
INSERT INTO public.transition VALUES (7, 'p_93533f89fb109a16', 'status', 'opted_out', 'active', 'paused', 'participant sent STOP: consent to messages withdrawn', '2026-01-06 04:58:02.26069+00');
INSERT INTO public.transition VALUES (8, 'p_e0dc067f74df2408', 'status', 'paused_by_researcher', 'active', 'paused', 'on holiday', '2026-01-06 04:58:06.705891+00');
INSERT INTO public.transition VALUES (9, 'p_8e374fe5eb3aee67', 'status', 'withdrawn_by_researcher', 'active', 'withdrawn', 'moved away', '2026-01-06 04:58:11.02824+00');
INSERT INTO public.transition VALUES (10, 'p_28f5ffc19440ec67', 'status', 'opted_out', 'active', 'paused', 'participant sent STOP: consent to messages withdrawn', '2026-01-06 04:58:16.356673+00');
INSERT INTO public.transition VALUES (11, 'p_28f5ffc19440ec67', 'status', 'opted_in', 'paused', 'active', 'participant sent START', '2026-01-06 04:58:21.008564+00');


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

\unrestrict ZCcX7lkVeb4bSM29rgfZ5lzNSUzr7mUxUk81aPON4h4IDzQ3OxplKvgiViDjbW8

