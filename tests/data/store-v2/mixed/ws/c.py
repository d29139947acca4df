y = fetch_data(4)
