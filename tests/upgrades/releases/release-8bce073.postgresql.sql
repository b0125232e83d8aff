--
-- PostgreSQL database dump
--

\restrict iRdjeZITy5dLzHaAIMpPj60PRmKCKvSEJOMbg8dtdqGlNoUTEAeACphkMekLlOD

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
-- Name: transition id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.transition ALTER COLUMN id SET DEFAULT nextval('public.transition_id_seq'::regclass);


--
-- Data for Name: conversation; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.conversation VALUES ('p_f63876e767df5f10', 'FEEDBACK', '{"updated_at": "2026-01-06T04:57:47.430606+00:00", "habit_domain": "walking", "prompt_anchor": "after dinner", "preferred_time": "00:01", "motivational_frame": "to sleep better"}', '{}', '', 3, '2026-01-06 04:57:47.498064+00');
INSERT INTO public.conversation VALUES ('p_3fb1846d33bb1301', 'INTAKE', '{}', '{}', '', 3, '2026-01-06 04:57:51.999287+00');
INSERT INTO public.conversation VALUES ('p_8c2a49547fe1b971', 'INTAKE', '{}', '{}', '', 3, '2026-01-06 04:57:55.465812+00');
INSERT INTO public.conversation VALUES ('p_157656b5cd7eb14e', 'INTAKE', '{}', '{}', '', 3, '2026-01-06 04:57:59.944048+00');
INSERT INTO public.conversation VALUES ('p_18945fc0f059364f', 'INTAKE', '{}', '{}', '', 4, '2026-01-06 04:58:09.145584+00');


--
-- Data for Name: inbox; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.inbox VALUES (1, 'enroll:p_f63876e767df5f10', 'p_f63876e767df5f10', 'enroll', '{}', NULL, 'done', 0, '2026-01-06 04:57:33.219282+00', '2026-01-06 04:57:33.219282+00', '2026-01-06 04:57:35.268957+00', NULL);
INSERT INTO public.inbox VALUES (2, 'enroll:p_3fb1846d33bb1301', 'p_3fb1846d33bb1301', 'enroll', '{}', NULL, 'done', 0, '2026-01-06 04:57:35.748952+00', '2026-01-06 04:57:35.748952+00', '2026-01-06 04:57:36.118484+00', NULL);
INSERT INTO public.inbox VALUES (3, 'enroll:p_8c2a49547fe1b971', 'p_8c2a49547fe1b971', 'enroll', '{}', NULL, 'done', 0, '2026-01-06 04:57:37.696396+00', '2026-01-06 04:57:37.696396+00', '2026-01-06 04:57:38.649938+00', NULL);
INSERT INTO public.inbox VALUES (4, 'enroll:p_157656b5cd7eb14e', 'p_157656b5cd7eb14e', 'enroll', '{}', NULL, 'done', 0, '2026-01-06 04:57:39.396304+00', '2026-01-06 04:57:39.396304+00', '2026-01-06 04:57:40.669111+00', NULL);
INSERT INTO public.inbox VALUES (5, 'enroll:p_18945fc0f059364f', 'p_18945fc0f059364f', 'enroll', '{}', NULL, 'done', 0, '2026-01-06 04:57:41.215074+00', '2026-01-06 04:57:41.215074+00', '2026-01-06 04:57:42.819368+00', NULL);
INSERT INTO public.inbox VALUES (6, 'wa:sim-ab4d19c4c4d1175a', 'p_f63876e767df5f10', 'message', '{}', 6, 'done', 0, '2026-01-06 04:57:47.116406+00', '2026-01-06 04:57:47.116406+00', '2026-01-06 04:57:47.498064+00', NULL);
INSERT INTO public.inbox VALUES (7, 'wa:sim-5a43670c5c8ab260', 'p_3fb1846d33bb1301', 'message', '{}', 8, 'done', 0, '2026-01-06 04:57:51.154196+00', '2026-01-06 04:57:51.154196+00', '2026-01-06 04:57:51.999287+00', NULL);
INSERT INTO public.inbox VALUES (8, 'wa:sim-9e7c547eb0ee34d5', 'p_18945fc0f059364f', 'message', '{}', 10, 'done', 0, '2026-01-06 04:58:04.542095+00', '2026-01-06 04:58:04.542095+00', '2026-01-06 04:58:05.491332+00', NULL);
INSERT INTO public.inbox VALUES (9, 'wa:sim-3c5995ab35bef9e5', 'p_18945fc0f059364f', 'message', '{}', 12, 'done', 0, '2026-01-06 04:58:08.043334+00', '2026-01-06 04:58:08.043334+00', '2026-01-06 04:58:09.145584+00', NULL);


--
-- Data for Name: lid_mapping; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: message; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.message VALUES (1, 'p_f63876e767df5f10', 'out', 'assistant', 'greeting', 'Walk around the block right after dinner tonight: ten minutes is plenty.', '{}', 'dry-b6ddaf2b2259a665', 'sent', '2026-01-06 04:57:35.268957+00', '2026-01-06 04:57:35.320202+00');
INSERT INTO public.message VALUES (2, 'p_3fb1846d33bb1301', 'out', 'assistant', 'greeting', 'Walk around the block right after dinner tonight: ten minutes is plenty.', '{}', 'dry-19f893175a1b92e8', 'sent', '2026-01-06 04:57:36.118484+00', '2026-01-06 04:57:36.148654+00');
INSERT INTO public.message VALUES (3, 'p_8c2a49547fe1b971', 'out', 'assistant', 'greeting', 'Walk around the block right after dinner tonight: ten minutes is plenty.', '{}', 'dry-18dfca59455957a0', 'sent', '2026-01-06 04:57:38.649938+00', '2026-01-06 04:57:38.689307+00');
INSERT INTO public.message VALUES (4, 'p_157656b5cd7eb14e', 'out', 'assistant', 'greeting', 'Walk around the block right after dinner tonight: ten minutes is plenty.', '{}', 'dry-a27837c8b113b942', 'sent', '2026-01-06 04:57:40.669111+00', '2026-01-06 04:57:40.724863+00');
INSERT INTO public.message VALUES (5, 'p_18945fc0f059364f', 'out', 'assistant', 'greeting', 'Walk around the block right after dinner tonight: ten minutes is plenty.', '{}', 'dry-ee646b04a0159b2c', 'sent', '2026-01-06 04:57:42.819368+00', '2026-01-06 04:57:42.870358+00');
INSERT INTO public.message VALUES (6, 'p_f63876e767df5f10', 'in', 'user', 'text', 'I''d like to walk around the block after dinner, just after midnight works', '{}', 'sim-ab4d19c4c4d1175a', 'answered', '2026-01-06 04:57:47.116406+00', NULL);
INSERT INTO public.message VALUES (7, 'p_f63876e767df5f10', 'out', 'assistant', 'text', 'Lovely, your plan is set. I''ll nudge you each day.', '{}', 'dry-5b03a2fc9b6674cb', 'sent', '2026-01-06 04:57:47.498064+00', '2026-01-06 04:57:47.588214+00');
INSERT INTO public.message VALUES (8, 'p_3fb1846d33bb1301', 'in', 'user', 'text', 'STOP', '{}', 'sim-5a43670c5c8ab260', 'answered', '2026-01-06 04:57:51.154196+00', NULL);
INSERT INTO public.message VALUES (9, 'p_3fb1846d33bb1301', 'out', 'assistant', 'command', 'Okay, you''re unsubscribed: you won''t get any more daily nudges, reminders or check-ins from this study. If you change your mind, send START. Send HELP for information.', '{}', 'dry-0da5d1eff88539df', 'sent', '2026-01-06 04:57:51.999287+00', '2026-01-06 04:57:52.044767+00');
INSERT INTO public.message VALUES (10, 'p_18945fc0f059364f', 'in', 'user', 'text', 'STOP', '{}', 'sim-9e7c547eb0ee34d5', 'answered', '2026-01-06 04:58:04.542095+00', NULL);
INSERT INTO public.message VALUES (11, 'p_18945fc0f059364f', 'out', 'assistant', 'command', 'Okay, you''re unsubscribed: you won''t get any more daily nudges, reminders or check-ins from this study. If you change your mind, send START. Send HELP for information.', '{}', 'dry-abc2ba52e6cea064', 'sent', '2026-01-06 04:58:05.491332+00', '2026-01-06 04:58:05.540437+00');
INSERT INTO public.message VALUES (12, 'p_18945fc0f059364f', 'in', 'user', 'text', 'START', '{}', 'sim-3c5995ab35bef9e5', 'answered', '2026-01-06 04:58:08.043334+00', NULL);
INSERT INTO public.message VALUES (13, 'p_18945fc0f059364f', 'out', 'assistant', 'command', 'Welcome back! Your daily nudges are switched on again.', '{}', 'dry-022480edf5458c42', 'sent', '2026-01-06 04:58:09.145584+00', '2026-01-06 04:58:09.180217+00');


--
-- Data for Name: outbox; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.outbox VALUES (1, 'reply:1', 'p_f63876e767df5f10', 1, 'sent', 1, '2026-01-06 04:57:35.268957+00', '2026-01-06 04:57:35.303508+00', '2026-01-06 04:57:35.320202+00', 'dry-b6ddaf2b2259a665', NULL, '2026-01-06 04:57:35.268957+00');
INSERT INTO public.outbox VALUES (2, 'reply:2', 'p_3fb1846d33bb1301', 2, 'sent', 1, '2026-01-06 04:57:36.118484+00', '2026-01-06 04:57:36.139349+00', '2026-01-06 04:57:36.148654+00', 'dry-19f893175a1b92e8', NULL, '2026-01-06 04:57:36.118484+00');
INSERT INTO public.outbox VALUES (3, 'reply:3', 'p_8c2a49547fe1b971', 3, 'sent', 1, '2026-01-06 04:57:38.649938+00', '2026-01-06 04:57:38.680683+00', '2026-01-06 04:57:38.689307+00', 'dry-18dfca59455957a0', NULL, '2026-01-06 04:57:38.649938+00');
INSERT INTO public.outbox VALUES (4, 'reply:4', 'p_157656b5cd7eb14e', 4, 'sent', 1, '2026-01-06 04:57:40.669111+00', '2026-01-06 04:57:40.713364+00', '2026-01-06 04:57:40.724863+00', 'dry-a27837c8b113b942', NULL, '2026-01-06 04:57:40.669111+00');
INSERT INTO public.outbox VALUES (5, 'reply:5', 'p_18945fc0f059364f', 5, 'sent', 1, '2026-01-06 04:57:42.819368+00', '2026-01-06 04:57:42.850184+00', '2026-01-06 04:57:42.870358+00', 'dry-ee646b04a0159b2c', NULL, '2026-01-06 04:57:42.819368+00');
INSERT INTO public.outbox VALUES (6, 'reply:6', 'p_f63876e767df5f10', 7, 'sent', 1, '2026-01-06 04:57:47.498064+00', '2026-01-06 04:57:47.575767+00', '2026-01-06 04:57:47.588214+00', 'dry-5b03a2fc9b6674cb', NULL, '2026-01-06 04:57:47.498064+00');
INSERT INTO public.outbox VALUES (7, 'reply:7', 'p_3fb1846d33bb1301', 9, 'sent', 1, '2026-01-06 04:57:51.999287+00', '2026-01-06 04:57:52.039934+00', '2026-01-06 04:57:52.044767+00', 'dry-0da5d1eff88539df', NULL, '2026-01-06 04:57:51.999287+00');
INSERT INTO public.outbox VALUES (8, 'reply:8', 'p_18945fc0f059364f', 11, 'sent', 1, '2026-01-06 04:58:05.491332+00', '2026-01-06 04:58:05.528647+00', '2026-01-06 04:58:05.540437+00', 'dry-abc2ba52e6cea064', NULL, '2026-01-06 04:58:05.491332+00');
INSERT INTO public.outbox VALUES (9, 'reply:9', 'p_18945fc0f059364f', 13, 'sent', 1, '2026-01-06 04:58:09.145584+00', '2026-01-06 04:58:09.175301+00', '2026-01-06 04:58:09.180217+00', 'dry-022480edf5458c42', NULL, '2026-01-06 04:58:09.145584+00');


--
-- Data for Name: participant; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.participant VALUES ('p_f63876e767df5f10', '+14165550140', NULL, 'Ana', 'America/Toronto', 'active', NULL, '', '2026-01-06 04:57:33.219282+00', '2026-01-06 04:57:33.219282+00');
INSERT INTO public.participant VALUES ('p_3fb1846d33bb1301', '+14165550141', NULL, 'Ben', 'America/Toronto', 'paused', 'participant', '', '2026-01-06 04:57:35.748952+00', '2026-01-06 04:57:51.999287+00');
INSERT INTO public.participant VALUES ('p_8c2a49547fe1b971', '+14165550142', NULL, 'Cleo', 'America/Toronto', 'paused', 'researcher', '', '2026-01-06 04:57:37.696396+00', '2026-01-06 04:57:55.465812+00');
INSERT INTO public.participant VALUES ('p_157656b5cd7eb14e', '+14165550143', NULL, 'Dev', 'America/Toronto', 'withdrawn', NULL, '', '2026-01-06 04:57:39.396304+00', '2026-01-06 04:57:59.944048+00');
INSERT INTO public.participant VALUES ('p_18945fc0f059364f', '+14165550144', NULL, 'Eli', 'America/Toronto', 'active', NULL, '', '2026-01-06 04:57:41.215074+00', '2026-01-06 04:58:09.145584+00');


--
-- Data for Name: transition; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.transition VALUES (1, 'p_f63876e767df5f10', 'status', 'enrolled', NULL, 'active', 'enrolled by a researcher', '2026-01-06 04:57:33.219282+00');
INSERT INTO public.transition VALUES (2, 'p_3fb1846d33bb1301', 'status', 'enrolled', NULL, 'active', 'enrolled by a researcher', '2026-01-06 04:57:35.748952+00');
INSERT INTO public.transition VALUES (3, 'p_8c2a49547fe1b971', 'status', 'enrolled', NULL, 'active', 'enrolled by a researcher', '2026-01-06 04:57:37.696396+00');
INSERT INTO public.transition VALUES (4, 'p_157656b5cd7eb14e', 'status', 'enrolled', NULL, 'active', 'enrolled by a researcher', '2026-01-06 04:57:39.396304+00');
INSERT INTO public.transition VALUES (5, 'p_18945fc0f059364f', 'status', 'enrolled', NULL, 'active', 'enrolled by a researcher', '2026-01-06 04:57:41.215074+00');
INSERT INTO public.transition VALUES (6, 'p_f63876e767df5f10', 'sub_state', 'intake_to_feedback', 'INTAKE', 'FEEDBACK', 'the plan is set', '2026-01-06 04:57:47.498064+00');
INSERT INTO public.transition VALUES (7, 'p_3fb1846d33bb1301', 'status', 'opted_out', 'active', 'paused', 'participant sent STOP: consent to messages withdrawn', '2026-01-06 04:57:51.999287+00');
INSERT INTO public.transition VALUES (8, 'p_8c2a49547fe1b971', 'status', 'paused_by_researcher', 'active', 'paused', 'on holiday', '2026-01-06 04:57:55.465812+00');
INSERT INTO public.transition VALUES (9, 'p_157656b5cd7eb14e', 'status', 'withdrawn_by_researcher', 'active', 'withdrawn', 'moved away', '2026-01-06 04:57:59.944048+00');
INSERT INTO public.transition VALUES (10, 'p_18945fc0f059364f', 'status', 'opted_out', 'active', 'paused', 'participant sent STOP: consent to messages withdrawn', '2026-01-06 04:58:05.491332+00');
INSERT INTO public.transition VALUES (11, 'p_18945fc0f059364f', 'status', 'opted_in', 'paused', 'active', 'participant sent START', '2026-01-06 04:58:09.145584+00');


--
-- Name: inbox_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.inbox_id_seq', 9, true);


--
-- Name: message_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.message_id_seq', 13, true);


--
-- Name: outbox_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.outbox_id_seq', 9, true);


--
-- Name: transition_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.transition_id_seq', 11, true);


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
-- Name: transition transition_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.transition
    ADD CONSTRAINT transition_pkey PRIMARY KEY (id);


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
-- Name: transition transition_participant_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.transition
    ADD CONSTRAINT transition_participant_id_fkey FOREIGN KEY (participant_id) REFERENCES public.participant(id);


--
-- PostgreSQL database dump complete
--

\unrestrict iRdjeZITy5dLzHaAIMpPj60PRmKCKvSEJOMbg8dtdqGlNoUTEAeACphkMekLlOD

