"""A questionnaire in the conversation (the flow's layer): an instance sent, its items asked and reminded
(``instance``), a reply to the item under way (``answer``), instances planned and their timer (``queue``)."""
