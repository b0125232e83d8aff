--
-- PostgreSQL database dump
--

\restrict 9NG4NoSbJYQhYekfIIuH34WXz1pvoAxxq74wc5Vd9E3gnzCORf4UrKMPcymzcWh

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
-- Name: timer id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.timer ALTER COLUMN id SET DEFAULT nextval('public.timer_id_seq'::regclass);


--
-- Name: transition id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.transition ALTER COLUMN id SET DEFAULT nextval('public.transition_id_seq'::regclass);


--
-- Data for Name: apscheduler_jobs; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.apscheduler_jobs VALUES ('daily:p_97d0259ba7ccc762:s_a2fe47e6', 1767762060, '\x80059554020000000000007d94288c0776657273696f6e944b018c026964948c236461696c793a705f393764303235396261376363633736323a735f6132666534376536948c0466756e63948c2b70726f6d7074706970652e7363686564756c696e672e6a6f62733a6461696c795f70726f6d70745f647565948c0774726967676572948c1d70726f6d7074706970652e7363686564756c696e672e74726967676572948c124461696c7950726f6d7074547269676765729493942981947d942868014b018c046b696e64948c056669786564948c0a68616269745f74696d65948c0530303a3031948c0c77696e646f775f7374617274944e8c0a77696e646f775f656e64944e8c0c707265705f6d696e75746573944b008c0473656564948c0a735f6132666534376536948c047a6f6e65948c0f416d65726963612f546f726f6e746f9475628c086578656375746f72948c0764656661756c74948c046172677394298c066b7761726773947d94288c0e7061727469636970616e745f6964948c12705f39376430323539626137636363373632948c0b7363686564756c655f6964946814758c046e616d65948c106461696c795f70726f6d70745f647565948c126d6973666972655f67726163655f74696d65944d100e8c08636f616c6573636594888c0d6d61785f696e7374616e636573944b018c0d6e6578745f72756e5f74696d65948c086461746574696d65948c086461746574696d65949394430a07ea01070501000000009468258c0874696d657a6f6e6594939468258c0974696d6564656c74619493944b004b004b00879452948594529486945294752e');
INSERT INTO public.apscheduler_jobs VALUES ('reminder:p_97d0259ba7ccc762', 1767693660.151415, '\x800595bd010000000000007d94288c0776657273696f6e944b018c026964948c1b72656d696e6465723a705f39376430323539626137636363373632948c0466756e63948c2470726f6d7074706970652e7363686564756c696e672e6a6f62733a74696d65725f647565948c0774726967676572948c1961707363686564756c65722e74726967676572732e64617465948c0b44617465547269676765729493942981947d942868014b018c0872756e5f64617465948c086461746574696d65948c086461746574696d65949394430a07ea01060a0100024f7794680d8c0874696d657a6f6e65949394680d8c0974696d6564656c74619493944b004b004b0087945294859452948694529475628c086578656375746f72948c0764656661756c74948c046172677394298c066b7761726773947d94288c0e7061727469636970616e745f6964948c12705f39376430323539626137636363373632948c0874696d65725f6964944b02758c046e616d65948c0974696d65725f647565948c126d6973666972655f67726163655f74696d65944d100e8c08636f616c6573636594888c0d6d61785f696e7374616e636573944b018c0d6e6578745f72756e5f74696d6594681a752e');
INSERT INTO public.apscheduler_jobs VALUES ('feedback_check_in:p_97d0259ba7ccc762', 1767676560.151415, '\x800595c6010000000000007d94288c0776657273696f6e944b018c026964948c24666565646261636b5f636865636b5f696e3a705f39376430323539626137636363373632948c0466756e63948c2470726f6d7074706970652e7363686564756c696e672e6a6f62733a74696d65725f647565948c0774726967676572948c1961707363686564756c65722e74726967676572732e64617465948c0b44617465547269676765729493942981947d942868014b018c0872756e5f64617465948c086461746574696d65948c086461746574696d65949394430a07ea0106051000024f7794680d8c0874696d657a6f6e65949394680d8c0974696d6564656c74619493944b004b004b0087945294859452948694529475628c086578656375746f72948c0764656661756c74948c046172677394298c066b7761726773947d94288c0e7061727469636970616e745f6964948c12705f39376430323539626137636363373632948c0874696d65725f6964944b03758c046e616d65948c0974696d65725f647565948c126d6973666972655f67726163655f74696d65944d100e8c08636f616c6573636594888c0d6d61785f696e7374616e636573944b018c0d6e6578745f72756e5f74696d6594681a752e');


--
-- Data for Name: conversation; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.conversation VALUES ('p_a041c84e03c76dc5', 'INTAKE', '{}', '{}', '', 3, '2026-01-06 04:57:51.284564+00');
INSERT INTO public.conversation VALUES ('p_c99a124f7485da2f', 'INTAKE', '{}', '{}', '', 3, '2026-01-06 04:57:54.10503+00');
INSERT INTO public.conversation VALUES ('p_3c45ff51268ad28b', 'INTAKE', '{}', '{}', '', 3, '2026-01-06 04:57:59.291101+00');
INSERT INTO public.conversation VALUES ('p_3b1043fbd606122d', 'INTAKE', '{}', '{}', '', 4, '2026-01-06 04:58:11.500376+00');
INSERT INTO public.conversation VALUES ('p_97d0259ba7ccc762', 'FEEDBACK', '{"counters": {"prompts_sent": 1}, "updated_at": "2026-01-06T04:57:47.223540+00:00", "habit_domain": "walking", "prompt_anchor": "after dinner", "preferred_time": "00:01", "last_habit_prompt": "Walk around the block right after dinner tonight: ten minutes is plenty.", "motivational_frame": "to sleep better", "intensity_poll_date": "2026-01-06", "last_prompt_sent_at": "2026-01-06T05:01:00.151415+00:00"}', '{}', '', 4, '2026-01-06 05:01:00.206822+00');


--
-- Data for Name: inbox; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.inbox VALUES (1, 'enroll:p_97d0259ba7ccc762', 'p_97d0259ba7ccc762', 'enroll', '{}', NULL, 'done', 0, '2026-01-06 04:57:33.537319+00', '2026-01-06 04:57:33.537319+00', '2026-01-06 04:57:36.167912+00', NULL);
INSERT INTO public.inbox VALUES (2, 'enroll:p_a041c84e03c76dc5', 'p_a041c84e03c76dc5', 'enroll', '{}', NULL, 'done', 0, '2026-01-06 04:57:36.014303+00', '2026-01-06 04:57:36.014303+00', '2026-01-06 04:57:37.471991+00', NULL);
INSERT INTO public.inbox VALUES (3, 'enroll:p_c99a124f7485da2f', 'p_c99a124f7485da2f', 'enroll', '{}', NULL, 'done', 0, '2026-01-06 04:57:38.549945+00', '2026-01-06 04:57:38.549945+00', '2026-01-06 04:57:39.555105+00', NULL);
INSERT INTO public.inbox VALUES (4, 'enroll:p_3c45ff51268ad28b', 'p_3c45ff51268ad28b', 'enroll', '{}', NULL, 'done', 0, '2026-01-06 04:57:41.445191+00', '2026-01-06 04:57:41.445191+00', '2026-01-06 04:57:41.585164+00', NULL);
INSERT INTO public.inbox VALUES (5, 'enroll:p_3b1043fbd606122d', 'p_3b1043fbd606122d', 'enroll', '{}', NULL, 'done', 0, '2026-01-06 04:57:43.283624+00', '2026-01-06 04:57:43.283624+00', '2026-01-06 04:57:43.758649+00', NULL);
INSERT INTO public.inbox VALUES (6, 'wa:sim-267a85229b9a28e5', 'p_97d0259ba7ccc762', 'message', '{}', 6, 'done', 0, '2026-01-06 04:57:46.267338+00', '2026-01-06 04:57:46.267338+00', '2026-01-06 04:57:47.275681+00', NULL);
INSERT INTO public.inbox VALUES (7, 'wa:sim-e8f4b18b704ae6f6', 'p_a041c84e03c76dc5', 'message', '{}', 8, 'done', 0, '2026-01-06 04:57:50.286382+00', '2026-01-06 04:57:50.286382+00', '2026-01-06 04:57:51.284564+00', NULL);
INSERT INTO public.inbox VALUES (8, 'sync:p_c99a124f7485da2f:b2210fa0', 'p_c99a124f7485da2f', 'sync', '{}', NULL, 'done', 0, '2026-01-06 04:57:54.10503+00', '2026-01-06 04:57:54.10503+00', '2026-01-06 04:57:54.775966+00', NULL);
INSERT INTO public.inbox VALUES (9, 'sync:p_3c45ff51268ad28b:335f0045', 'p_3c45ff51268ad28b', 'sync', '{}', NULL, 'done', 0, '2026-01-06 04:57:59.291101+00', '2026-01-06 04:57:59.291101+00', '2026-01-06 04:57:59.538934+00', NULL);
INSERT INTO public.inbox VALUES (10, 'wa:sim-eb66d0c479f52514', 'p_3b1043fbd606122d', 'message', '{}', 10, 'done', 0, '2026-01-06 04:58:04.806612+00', '2026-01-06 04:58:04.806612+00', '2026-01-06 04:58:05.703224+00', NULL);
INSERT INTO public.inbox VALUES (11, 'wa:sim-06be4cb744ee8669', 'p_3b1043fbd606122d', 'message', '{}', 12, 'done', 0, '2026-01-06 04:58:10.706492+00', '2026-01-06 04:58:10.706492+00', '2026-01-06 04:58:11.500376+00', NULL);
INSERT INTO public.inbox VALUES (12, 'prompt:p_97d0259ba7ccc762:s_a2fe47e6:2026-01-06', 'p_97d0259ba7ccc762', 'daily_prompt', '{"due_at": "2026-01-06T05:01:00+00:00", "local_date": "2026-01-06", "schedule_id": "s_a2fe47e6"}', NULL, 'done', 0, '2026-01-06 05:01:00.018481+00', '2026-01-06 05:01:00.018481+00', '2026-01-06 05:01:00.206822+00', NULL);


--
-- Data for Name: lid_mapping; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: message; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.message VALUES (1, 'p_97d0259ba7ccc762', 'out', 'assistant', 'greeting', 'Walk around the block right after dinner tonight: ten minutes is plenty.', '{}', 'dry-446727cfaa44201c', 'sent', '2026-01-06 04:57:36.167912+00', '2026-01-06 04:57:36.218436+00');
INSERT INTO public.message VALUES (2, 'p_a041c84e03c76dc5', 'out', 'assistant', 'greeting', 'Walk around the block right after dinner tonight: ten minutes is plenty.', '{}', 'dry-5a80de096de08de0', 'sent', '2026-01-06 04:57:37.471991+00', '2026-01-06 04:57:37.529072+00');
INSERT INTO public.message VALUES (3, 'p_c99a124f7485da2f', 'out', 'assistant', 'greeting', 'Walk around the block right after dinner tonight: ten minutes is plenty.', '{}', 'dry-5a524506d4de5fb7', 'sent', '2026-01-06 04:57:39.555105+00', '2026-01-06 04:57:39.637632+00');
INSERT INTO public.message VALUES (4, 'p_3c45ff51268ad28b', 'out', 'assistant', 'greeting', 'Walk around the block right after dinner tonight: ten minutes is plenty.', '{}', 'dry-23495496fbfbc75b', 'sent', '2026-01-06 04:57:41.585164+00', '2026-01-06 04:57:41.619951+00');
INSERT INTO public.message VALUES (5, 'p_3b1043fbd606122d', 'out', 'assistant', 'greeting', 'Walk around the block right after dinner tonight: ten minutes is plenty.', '{}', 'dry-89e14bed54d4d3a5', 'sent', '2026-01-06 04:57:43.758649+00', '2026-01-06 04:57:43.815189+00');
INSERT INTO public.message VALUES (6, 'p_97d0259ba7ccc762', 'in', 'user', 'text', 'I''d like to walk around the block after dinner, just after midnight works', '{}', 'sim-267a85229b9a28e5', 'answered', '2026-01-06 04:57:46.267338+00', NULL);
INSERT INTO public.message VALUES (7, 'p_97d0259ba7ccc762', 'out', 'assistant', 'text', 'Lovely, your plan is set. I''ll nudge you each day.', '{}', 'dry-b6d604ec36d9d6a6', 'sent', '2026-01-06 04:57:47.275681+00', '2026-01-06 04:57:47.552845+00');
INSERT INTO public.message VALUES (8, 'p_a041c84e03c76dc5', 'in', 'user', 'text', 'STOP', '{}', 'sim-e8f4b18b704ae6f6', 'answered', '2026-01-06 04:57:50.286382+00', NULL);
INSERT INTO public.message VALUES (9, 'p_a041c84e03c76dc5', 'out', 'assistant', 'command', 'Okay, you''re unsubscribed: you won''t get any more daily nudges, reminders or check-ins from this study. If you change your mind, send START. Send HELP for information.', '{}', 'dry-42520a28633574f2', 'sent', '2026-01-06 04:57:51.284564+00', '2026-01-06 04:57:51.412796+00');
INSERT INTO public.message VALUES (10, 'p_3b1043fbd606122d', 'in', 'user', 'text', 'STOP', '{}', 'sim-eb66d0c479f52514', 'answered', '2026-01-06 04:58:04.806612+00', NULL);
INSERT INTO public.message VALUES (11, 'p_3b1043fbd606122d', 'out', 'assistant', 'command', 'Okay, you''re unsubscribed: you won''t get any more daily nudges, reminders or check-ins from this study. If you change your mind, send START. Send HELP for information.', '{}', 'dry-dc1d591b79c14316', 'sent', '2026-01-06 04:58:05.703224+00', '2026-01-06 04:58:05.860029+00');
INSERT INTO public.message VALUES (12, 'p_3b1043fbd606122d', 'in', 'user', 'text', 'START', '{}', 'sim-06be4cb744ee8669', 'answered', '2026-01-06 04:58:10.706492+00', NULL);
INSERT INTO public.message VALUES (13, 'p_3b1043fbd606122d', 'out', 'assistant', 'command', 'Welcome back! Your daily nudges are switched on again.', '{}', 'dry-4de61e7ab8fe4156', 'sent', '2026-01-06 04:58:11.500376+00', '2026-01-06 04:58:11.533702+00');
INSERT INTO public.message VALUES (14, 'p_97d0259ba7ccc762', 'out', 'assistant', 'prompt', 'Walk around the block right after dinner tonight: ten minutes is plenty.', '{}', 'dry-810534a9a44aba34', 'sent', '2026-01-06 05:01:00.206822+00', '2026-01-06 05:01:00.306808+00');
INSERT INTO public.message VALUES (15, 'p_97d0259ba7ccc762', 'out', 'assistant', 'poll', 'Did you do it?', '{"options": ["Done", "Not this time"], "purpose": "done"}', 'dry-860fff7ea4b31170', 'sent', '2026-01-06 05:01:00.206822+00', '2026-01-06 05:01:00.367174+00');
INSERT INTO public.message VALUES (16, 'p_97d0259ba7ccc762', 'out', 'assistant', 'poll', 'How do these daily steps feel to you?', '{"options": ["A bit lighter, please", "Just right", "A bit more, please"], "purpose": "intensity"}', 'dry-228c0d3a54f76c92', 'sent', '2026-01-06 05:01:00.206822+00', '2026-01-06 05:01:00.38562+00');


--
-- Data for Name: outbox; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.outbox VALUES (1, 'reply:1', 'p_97d0259ba7ccc762', 1, 'sent', 1, '2026-01-06 04:57:36.167912+00', '2026-01-06 04:57:36.205026+00', '2026-01-06 04:57:36.218436+00', 'dry-446727cfaa44201c', NULL, '2026-01-06 04:57:36.167912+00');
INSERT INTO public.outbox VALUES (2, 'reply:2', 'p_a041c84e03c76dc5', 2, 'sent', 1, '2026-01-06 04:57:37.471991+00', '2026-01-06 04:57:37.522408+00', '2026-01-06 04:57:37.529072+00', 'dry-5a80de096de08de0', NULL, '2026-01-06 04:57:37.471991+00');
INSERT INTO public.outbox VALUES (3, 'reply:3', 'p_c99a124f7485da2f', 3, 'sent', 1, '2026-01-06 04:57:39.555105+00', '2026-01-06 04:57:39.626449+00', '2026-01-06 04:57:39.637632+00', 'dry-5a524506d4de5fb7', NULL, '2026-01-06 04:57:39.555105+00');
INSERT INTO public.outbox VALUES (4, 'reply:4', 'p_3c45ff51268ad28b', 4, 'sent', 1, '2026-01-06 04:57:41.585164+00', '2026-01-06 04:57:41.615168+00', '2026-01-06 04:57:41.619951+00', 'dry-23495496fbfbc75b', NULL, '2026-01-06 04:57:41.585164+00');
INSERT INTO public.outbox VALUES (5, 'reply:5', 'p_3b1043fbd606122d', 5, 'sent', 1, '2026-01-06 04:57:43.758649+00', '2026-01-06 04:57:43.793264+00', '2026-01-06 04:57:43.815189+00', 'dry-89e14bed54d4d3a5', NULL, '2026-01-06 04:57:43.758649+00');
INSERT INTO public.outbox VALUES (6, 'reply:6', 'p_97d0259ba7ccc762', 7, 'sent', 1, '2026-01-06 04:57:47.275681+00', '2026-01-06 04:57:47.299158+00', '2026-01-06 04:57:47.552845+00', 'dry-b6d604ec36d9d6a6', NULL, '2026-01-06 04:57:47.275681+00');
INSERT INTO public.outbox VALUES (7, 'reply:7', 'p_a041c84e03c76dc5', 9, 'sent', 1, '2026-01-06 04:57:51.284564+00', '2026-01-06 04:57:51.399305+00', '2026-01-06 04:57:51.412796+00', 'dry-42520a28633574f2', NULL, '2026-01-06 04:57:51.284564+00');
INSERT INTO public.outbox VALUES (8, 'reply:10', 'p_3b1043fbd606122d', 11, 'sent', 1, '2026-01-06 04:58:05.703224+00', '2026-01-06 04:58:05.816983+00', '2026-01-06 04:58:05.860029+00', 'dry-dc1d591b79c14316', NULL, '2026-01-06 04:58:05.703224+00');
INSERT INTO public.outbox VALUES (9, 'reply:11', 'p_3b1043fbd606122d', 13, 'sent', 1, '2026-01-06 04:58:11.500376+00', '2026-01-06 04:58:11.525733+00', '2026-01-06 04:58:11.533702+00', 'dry-4de61e7ab8fe4156', NULL, '2026-01-06 04:58:11.500376+00');
INSERT INTO public.outbox VALUES (10, 'prompt-text:12', 'p_97d0259ba7ccc762', 14, 'sent', 1, '2026-01-06 05:01:00.206822+00', '2026-01-06 05:01:00.300595+00', '2026-01-06 05:01:00.306808+00', 'dry-810534a9a44aba34', NULL, '2026-01-06 05:01:00.206822+00');
INSERT INTO public.outbox VALUES (11, 'prompt-poll:12', 'p_97d0259ba7ccc762', 15, 'sent', 1, '2026-01-06 05:01:00.206822+00', '2026-01-06 05:01:00.35056+00', '2026-01-06 05:01:00.367174+00', 'dry-860fff7ea4b31170', NULL, '2026-01-06 05:01:00.206822+00');
INSERT INTO public.outbox VALUES (12, 'intensity-poll:12', 'p_97d0259ba7ccc762', 16, 'sent', 1, '2026-01-06 05:01:00.206822+00', '2026-01-06 05:01:00.3754+00', '2026-01-06 05:01:00.38562+00', 'dry-228c0d3a54f76c92', NULL, '2026-01-06 05:01:00.206822+00');


--
-- Data for Name: participant; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.participant VALUES ('p_97d0259ba7ccc762', '+14165550140', NULL, 'Ana', 'America/Toronto', 'active', NULL, '', '2026-01-06 04:57:33.537319+00', '2026-01-06 04:57:33.537319+00');
INSERT INTO public.participant VALUES ('p_a041c84e03c76dc5', '+14165550141', NULL, 'Ben', 'America/Toronto', 'paused', 'participant', '', '2026-01-06 04:57:36.014303+00', '2026-01-06 04:57:51.284564+00');
INSERT INTO public.participant VALUES ('p_c99a124f7485da2f', '+14165550142', NULL, 'Cleo', 'America/Toronto', 'paused', 'researcher', '', '2026-01-06 04:57:38.549945+00', '2026-01-06 04:57:54.10503+00');
INSERT INTO public.participant VALUES ('p_3c45ff51268ad28b', '+14165550143', NULL, 'Dev', 'America/Toronto', 'withdrawn', NULL, '', '2026-01-06 04:57:41.445191+00', '2026-01-06 04:57:59.291101+00');
INSERT INTO public.participant VALUES ('p_3b1043fbd606122d', '+14165550144', NULL, 'Eli', 'America/Toronto', 'active', NULL, '', '2026-01-06 04:57:43.283624+00', '2026-01-06 04:58:11.500376+00');


--
-- Data for Name: schedule; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.schedule VALUES ('s_a2fe47e6', 'p_97d0259ba7ccc762', 'fixed', '00:01', NULL, NULL, 0, true, '2026-01-06 04:57:47.275681+00', '2026-01-06 04:57:47.275681+00');


--
-- Data for Name: timer; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.timer VALUES (2, 'p_97d0259ba7ccc762', 'reminder', '2026-01-06 10:01:00.151415+00', '{"prompt_inbox_id": 12}', 'pending', 'daily prompt sent', '2026-01-06 05:01:00.206822+00', NULL);
INSERT INTO public.timer VALUES (1, 'p_97d0259ba7ccc762', 'feedback_check_in', '2026-01-06 05:12:47.275586+00', '{}', 'cancelled', 'daily prompt sent', '2026-01-06 04:57:47.275681+00', '2026-01-06 05:01:00.206822+00');
INSERT INTO public.timer VALUES (3, 'p_97d0259ba7ccc762', 'feedback_check_in', '2026-01-06 05:16:00.151415+00', '{}', 'pending', 'daily prompt sent', '2026-01-06 05:01:00.206822+00', NULL);


--
-- Data for Name: transition; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.transition VALUES (1, 'p_97d0259ba7ccc762', 'status', 'enrolled', NULL, 'active', 'enrolled by a researcher', '2026-01-06 04:57:33.537319+00');
INSERT INTO public.transition VALUES (2, 'p_a041c84e03c76dc5', 'status', 'enrolled', NULL, 'active', 'enrolled by a researcher', '2026-01-06 04:57:36.014303+00');
INSERT INTO public.transition VALUES (3, 'p_c99a124f7485da2f', 'status', 'enrolled', NULL, 'active', 'enrolled by a researcher', '2026-01-06 04:57:38.549945+00');
INSERT INTO public.transition VALUES (4, 'p_3c45ff51268ad28b', 'status', 'enrolled', NULL, 'active', 'enrolled by a researcher', '2026-01-06 04:57:41.445191+00');
INSERT INTO public.transition VALUES (5, 'p_3b1043fbd606122d', 'status', 'enrolled', NULL, 'active', 'enrolled by a researcher', '2026-01-06 04:57:43.283624+00');
INSERT INTO public.transition VALUES (6, 'p_97d0259ba7ccc762', 'sub_state', 'intake_to_feedback', 'INTAKE', 'FEEDBACK', 'the plan is set', '2026-01-06 04:57:47.275681+00');
INSERT INTO public.transition VALUES (7, 'p_a041c84e03c76dc5', 'status', 'opted_out', 'active', 'paused', 'participant sent STOP: consent to messages withdrawn', '2026-01-06 04:57:51.284564+00');
INSERT INTO public.transition VALUES (8, 'p_c99a124f7485da2f', 'status', 'paused_by_researcher', 'active', 'paused', 'on holiday', '2026-01-06 04:57:54.10503+00');
INSERT INTO public.transition VALUES (9, 'p_3c45ff51268ad28b', 'status', 'withdrawn_by_researcher', 'active', 'withdrawn', 'moved away', '2026-01-06 04:57:59.291101+00');
INSERT INTO public.transition VALUES (10, 'p_3b1043fbd606122d', 'status', 'opted_out', 'active', 'paused', 'participant sent STOP: consent to messages withdrawn', '2026-01-06 04:58:05.703224+00');
INSERT INTO public.transition VALUES (11, 'p_3b1043fbd606122d', 'status', 'opted_in', 'paused', 'active', 'participant sent START', '2026-01-06 04:58:11.500376+00');


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
-- Name: timer_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.timer_id_seq', 3, true);


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
-- Name: transition transition_participant_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.transition
    ADD CONSTRAINT transition_participant_id_fkey FOREIGN KEY (participant_id) REFERENCES public.participant(id);


--
-- PostgreSQL database dump complete
--

\unrestrict 9NG4NoSbJYQhYekfIIuH34WXz1pvoAxxq74wc5Vd9E3gnzCORf4UrKMPcymzcWh

