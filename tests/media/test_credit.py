"""What a picture's or a video's credit says on screen (builtin_plugins/media/display.py)."""
from builtin_plugins.media.display import credit_line


def test_a_credit_names_the_person_and_the_service_the_guidelines_ask_for_never_a_raw_id():
    assert credit_line("Ana Lima", "pexels") == "Ana Lima on Pexels"
    assert credit_line("Jon Berg", "unsplash") == "Jon Berg on Unsplash"
    assert credit_line("", "nasa_apod") == "via NASA"
    # the operator's own upload and the cloud feed: the person only (the video caption said
    # "Ana Lima — manual_entry")
    assert credit_line("Ana Lima", "manual_entry") == "Ana Lima"
    assert credit_line(" Mia Chen ", "saas_feed") == "Mia Chen"
    assert credit_line(None, "manual_entry") == "" and credit_line(None, None) == ""
