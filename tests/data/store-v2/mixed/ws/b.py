x = fetch_data(3)
