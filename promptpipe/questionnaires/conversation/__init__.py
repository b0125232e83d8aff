"""A questionnaire in the conversation (the flow's layer): sent and asked, answered, planned."""
